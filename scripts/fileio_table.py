#!/usr/bin/env python3
"""Prints docs/fileio.md's tables from the scenarios in scenarios/fileio.

usage: scripts/fileio_table.py [--lockstep PATH] [--cost]

Without --cost: runs `lockstep check --json` on every checking scenario there and prints the
policy x property table of verdicts (markdown). With --cost: runs `lockstep run --json` on
the cost-*.yaml sweeps and prints throughput per data policy.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

PROPERTIES = ["offset_not_torn", "reads_unique", "no_lost_write", "writes_not_interleaved", "reads_atomic"]


def run(lockstep, command, path, out):
    json_path = pathlib.Path(out) / (path.stem + ".json")
    subprocess.run([lockstep, command, str(path), "--quiet", "--out-dir", out, "--json", str(json_path)], check=False)
    return json.loads(json_path.read_text())


def design_of(text):
    m = re.search(r"design: \{fileio: \{offset: ([\w-]+), data: ([\w-]+)(, word_bits: (\d+))?", text)
    return m.group(1), m.group(2), int(m.group(4) or 64)


def properties_of(text):
    return [p.strip() for p in re.search(r"^properties: \[(.*)\]", text, re.M).group(1).split(",")]


def row_of(path, text):
    offset, data, bits = design_of(text)
    if path.name.startswith("offset-"):
        return f"offset `{offset}`" + (", 64-bit" if bits == 64 and "torn" in path.name else "")
    return f"data `{data}`"


def verdicts(lockstep, files, out):
    table = {}
    order = []
    for path in files:
        text = path.read_text()
        result = run(lockstep, "check", path, out)
        row = row_of(path, text)
        if row not in table:
            table[row] = {}
            order.append(row)
        how = result["strategy"] + ("" if result["strategy"] != "bounded" else " " + result.get("bounds", ""))
        for prop in properties_of(text):
            if result["result"] == "violation" and result["property"] != prop:
                continue
            if result["result"] == "violation":
                cell = "**violated**"
            else:
                cell = "holds" if result.get("exhaustive") and result["strategy"] == "dfs" else f"holds ({how})"
            if not result["matched"]:
                cell += " (NOT as expected)"
            table[row].setdefault(prop, []).append(f"[{cell}](../{result['scenario']})")
    print("| policy | " + " | ".join(f"`{p}`" for p in PROPERTIES) + " |")
    print("|---|" + "---|" * len(PROPERTIES))
    for row in order:
        print(f"| {row} | " + " | ".join("<br>".join(table[row].get(p, ["-"])) for p in PROPERTIES) + " |")


def cost(lockstep, files, out):
    rows = {}  # (machine, data policy) -> {kind: row}, in the sweep's order
    for path in files:
        kind = path.stem.removeprefix("cost-")
        for r in run(lockstep, "run", path, out)["rows"]:
            params = dict(r["params"])
            key = (params.get("machine.preset", "-"), params["design.fileio.data"])
            rows.setdefault(key, {})[kind] = r
    print("| machine | data policy | disjoint: ops/s | reads/s | writes/s | overlapping: ops/s | reads/s | writes/s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (machine, policy), by_kind in rows.items():
        cells = []
        for kind in ("disjoint", "overlapping"):
            r = by_kind.get(kind, {})
            cells += [f"{r.get(k, 0) / 1e6:.2f} M" for k in ("ops_per_s", "read_ops_per_s", "write_ops_per_s")]
        print(f"| {machine} | `{policy}` | " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lockstep", default="build/bin/lockstep")
    parser.add_argument("--cost", action="store_true")
    args = parser.parse_args()
    scenarios = sorted(pathlib.Path("scenarios/fileio").glob("*.yaml"))
    with tempfile.TemporaryDirectory() as out:
        if args.cost:
            cost(args.lockstep, [p for p in scenarios if p.name.startswith("cost-")], out)
        else:
            checked = [p for p in scenarios if not p.name.startswith("cost-")]
            # Offset policies first, in docs/sources.md's order, then the data policies.
            rank = ["none", "inode-lock", "vnode-rwlock", "f-pos-lock", "foffset-lock", "exclusive", "shared-read",
                    "lockless-reads", "page-locks", "range-locks"]
            def key(p):
                offset, data, bits = design_of(p.read_text())
                policy = offset if p.name.startswith("offset-") else data
                return (not p.name.startswith("offset-"), rank.index(policy), bits == 64 and "torn" in p.name, p.name)
            verdicts(args.lockstep, sorted(checked, key=key), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
