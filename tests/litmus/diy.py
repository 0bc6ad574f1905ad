#!/usr/bin/env python3
"""Writes x86 litmus tests generated from critical cycles, in herd's format, with their
x86-TSO verdicts in a kinds.txt beside them (a few hundred litmus tests in
`make test` that the repository can hold; the public catalogues cannot be copied here).

The idea is diy's (Alglave, Maranget, Sarkar, Sewell, "Fences in weak memory models",
CAV 2010; herdtools7's diy7): a test is a cycle of relations between memory events,
  - program-order edges inside a thread, between two locations: PodWW, PodWR, PodRW, PodRR,
    and the same with MFENCE between the two events (MFencedWW, MFencedWR, ...);
  - communication edges between threads, on one location: Rfe (a read reads the write),
    Fre (a read reads what came before the write), Wse (one write is coherence-before the
    other).
Here every thread has one program-order edge and the threads are joined by one
communication edge each (two to four threads), which the generator enumerates up to
rotation. The `exists` condition asks for the cycle's outcome.

The verdicts come from the model, not from running anything: under x86-TSO the only
program order a machine may break is a write followed by a read of another location with
no fence between them (Owens, Sarkar, Sewell, "A better x86 memory model: x86-TSO",
TPHOLs 2009), so a critical cycle is allowed exactly when it has a PodWR edge; under SC none
is. This shares no code with lockstep's checkers.

Usage: diy.py OUT_DIR   (prints how many tests it wrote)
"""
import itertools
import os
import sys

# Program-order edges: (name, first event's direction, second's, fenced).
PO = [("PodWW", "W", "W", False), ("PodWR", "W", "R", False), ("PodRW", "R", "W", False),
      ("PodRR", "R", "R", False), ("MFencedWW", "W", "W", True), ("MFencedWR", "W", "R", True),
      ("MFencedRW", "R", "W", True), ("MFencedRR", "R", "R", True)]
# Communication edge between a thread's second event and the next thread's first.
COM = {("W", "R"): "Rfe", ("R", "W"): "Fre", ("W", "W"): "Wse"}  # R then R: no edge
LOCS = ["x", "y", "z", "a"]
REGS = ["EAX", "EBX"]


def canonical(seq):
    """The least rotation of a cycle of edges: a cycle is written once."""
    return min(tuple(seq[i:] + seq[:i]) for i in range(len(seq)))


def cycles(threads):
    seen = set()
    for pos in itertools.product(range(len(PO)), repeat=threads):
        coms = []
        for i in range(threads):
            a, b = PO[pos[i]], PO[pos[(i + 1) % threads]]
            com = COM.get((a[2], b[1]))
            if com is None:
                break
            coms.append(com)
        else:
            key = canonical([(PO[p][0], c) for p, c in zip(pos, coms)])
            if key not in seen:
                seen.add(key)
                yield key


def test(cycle):
    """The litmus test of a cycle [(po edge, com edge after it), ...]: thread i runs po edge
    i, whose second event meets thread i+1's first on location i (the com edge); its first
    event is on location i-1."""
    n = len(cycle)
    po = {name: (d1, d2, fenced) for name, d1, d2, fenced in PO}
    threads = []
    cond = []
    writes = {}  # location -> writes in coherence order, as (thread, value)
    for i, (edge, _) in enumerate(cycle):
        d1, d2, fenced = po[edge]
        threads.append([(d1, LOCS[(i - 1) % n]), (d2, LOCS[i])])
    # Values: per location, its two events are the second of thread i and the first of
    # thread i+1, joined by com edge i.
    for i, (_, com) in enumerate(cycle):
        loc = LOCS[i]
        if com == "Rfe":  # thread i writes 1, thread i+1 reads it
            cond.append(("read", (i + 1) % n, 0, loc, 1))
            writes[loc] = [(i, 1)]
        elif com == "Fre":  # thread i reads 0, thread i+1 writes 1 after
            cond.append(("read", i, 1, loc, 0))
            writes[loc] = [((i + 1) % n, 1)]
        else:  # Wse: thread i writes 1, then thread i+1 writes 2
            writes[loc] = [(i, 1), ((i + 1) % n, 2)]
            cond.append(("final", None, None, loc, 2))
    code = []
    regs_of = []
    for t, events in enumerate(threads):
        lines, regs = [], []
        for k, (d, loc) in enumerate(events):
            if d == "W":
                value = next(v for (th, v) in writes[loc] if th == t)
                lines.append(f"MOV [{loc}],${value}")
            else:
                reg = REGS[len(regs)]
                regs.append((k, reg))
                lines.append(f"MOV {reg},[{loc}]")
            if k == 0 and po[cycle[t][0]][2]:
                lines.append("MFENCE")
        code.append(lines)
        regs_of.append(dict(regs))
    name = "+".join(e for e, _ in cycle) + "_" + "-".join(c for _, c in cycle)
    parts = []
    for kind, t, k, loc, v in cond:
        if kind == "read":
            parts.append(f"{t}:{regs_of[t][k]}={v}")
        else:
            parts.append(f"{loc}={v}")
    allowed = any(e == "PodWR" for e, _ in cycle)
    rows = max(len(c) for c in code)
    widths = [max(len(f"P{t}"), *(len(l) for l in c)) for t, c in enumerate(code)]
    table = [" " + " | ".join(f"P{t}".ljust(widths[t]) for t in range(n)) + " ;"]
    for r in range(rows):
        table.append(" " + " | ".join((code[t][r] if r < len(code[t]) else "").ljust(widths[t]) for t in range(n)) + " ;")
    cyc = " ".join(f"{e} {c}" for e, c in cycle)
    init = " ".join(f"{loc}=0;" for loc in LOCS[:n])
    text = f"X86 {name}\n\"{cyc}\"\nCycle={cyc}\n{{ {init} }}\n" + "\n".join(table) + "\n"
    text += "exists (" + " /\\ ".join(parts) + ")\n"
    return name, text, "Allow" if allowed else "Forbid"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    kinds = []
    for n in (2, 3, 4):
        for cycle in cycles(n):
            name, text, kind = test(list(cycle))
            with open(os.path.join(out, name + ".litmus"), "w") as f:
                f.write(text)
            kinds.append(f"{name} {kind}")
    with open(os.path.join(out, "kinds.txt"), "w") as f:
        f.write("\n".join(kinds) + "\n")
    print(len(kinds))


if __name__ == "__main__":
    main()
