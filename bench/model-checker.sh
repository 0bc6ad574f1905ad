#!/usr/bin/env bash
# The model checker's speed: executions per second of an exhaustive dfs on the two
# benchmark scenarios, three runs each (this machine is noisy: the range is the figure).
# The speed to beat is GenMC's, about 200,000 executions/s on one core of this machine
# class; 50,000 is the floor (issue 5, REFERENCE.md section 5).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-34s %-8s %10s %8s %10s  %s\n' scenario row executions pruned exhaustive "executions/s (3 runs)"
for f in scenarios/bench/mc-mutex3.yaml scenarios/bench/mc-four-threads.yaml; do
  for run in 1 2 3; do
    build/bin/lockstep check "$f" --quiet --out-dir "$out" --json "$out/r$run.json"
  done
  python3 - "$f" "$out"/r1.json "$out"/r2.json "$out"/r3.json <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
rows = [r.get("rows", [r]) for r in runs]
for i, row in enumerate(rows[0]):
    label = ",".join(f"{v}" for v in row.get("params", {}).values()) or "-"
    speeds = sorted(r[i]["executions_per_s"] for r in rows)
    print(f"{sys.argv[1].split('/')[-1]:<34} {label:<8} {row['executions']:>10} {row['pruned']:>8} "
          f"{str(row['exhaustive']):>10}  {speeds[0]:,.0f} .. {speeds[-1]:,.0f}")
PY
done
