#!/usr/bin/env bash
# Results must not depend on the build (docs/architecture.md, "Determinism rules"): two
# lockstep binaries built differently (release and debug, gcc and clang, with and without
# sanitizers) check every bundled simulated scenario and must report the same trace_sha256,
# verdict, execution count and virtual time for each. A difference means a simulated
# address, a cost or a choice came from the host build (a frame's layout, a hash of a host
# pointer, an uninitialised byte) instead of from the simulator.
#
# Usage: scripts/check-build-independence.sh LOCKSTEP_A LOCKSTEP_B [SCENARIO...]
# Without scenarios: every simulated scenario under scenarios/ except the long-running
# sweeps (minutes each in an unoptimised build; bench/ runs those).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 LOCKSTEP_A LOCKSTEP_B [SCENARIO...]" >&2; exit 2; }
a=$1
b=$2
shift 2
scenarios=("$@")
((${#scenarios[@]} > 0)) || mapfile -t scenarios < <(scripts/simulated-scenarios.sh)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for side in a b; do
  bin=${!side}
  start=$(date +%s)
  # Exit 1 (a scenario did not match its expectation) is compared like any result.
  "$bin" check -q --out-dir "$scratch/$side" --json "$scratch/$side.json" "${scenarios[@]}" >/dev/null 2>"$scratch/$side.err" ||
    [ $? -eq 1 ] || { echo "FAIL: $bin exited with an error:"; cat "$scratch/$side.err"; exit 1; }
  echo "$side: $bin: ${#scenarios[@]} scenarios in $(($(date +%s) - start)) s"
done
python3 - "$scratch/a.json" "$scratch/b.json" <<'PY'
import json, sys

def facts(path):
    doc = json.load(open(path))
    results = doc if isinstance(doc, list) else doc.get("results", [doc])
    out = {}
    def visit(r, where):
        key = where + "/" + str(r.get("scenario", r.get("name", "?")))
        for i, row in enumerate(r.get("rows", []) or []):
            visit(row, f"{key}[{i}]")
        out[key] = {k: r.get(k) for k in ("result", "executions", "virtual_time_ns", "trace_sha256")}
    for i, r in enumerate(results):
        visit(r, str(i))
    return out

a, b = facts(sys.argv[1]), facts(sys.argv[2])
bad = 0
for key in sorted(set(a) | set(b)):
    if a.get(key) != b.get(key):
        bad += 1
        print(f"DIFFERS {key}:\n  a: {a.get(key)}\n  b: {b.get(key)}")
hashed = sum(1 for v in a.values() if v.get("trace_sha256"))
print(f"{len(a)} results compared, {hashed} with a trace hash: {'all the same' if bad == 0 else f'{bad} differ'}")
sys.exit(1 if bad else 0)
PY
