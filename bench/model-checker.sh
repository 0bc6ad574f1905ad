#!/usr/bin/env bash
# The model checker's speed: executions per second of an exhaustive dfs on the benchmark
# scenarios, three runs each (this machine is noisy: the range is the figure), then the
# four-thread ones with two workers. The speed to beat is GenMC's, about 200,000
# executions/s on one core of this machine class; 50,000 is the floor (issues 5 and 20,
# REFERENCE.md section 5).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-34s %-8s %10s %8s %10s  %s\n' scenario row executions pruned exhaustive "executions/s (3 runs)"
workers=1
report() {
  local f=$1
  for run in 1 2 3; do
    build/bin/lockstep check "$f" --quiet --workers "$workers" --out-dir "$out" --json "$out/r$run.json"
  done
  python3 - "$f" "$out"/r1.json "$out"/r2.json "$out"/r3.json <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[2:]]
rows = [r.get("rows", [r]) for r in runs]
for i, row in enumerate(rows[0]):
    label = ",".join(f"{v}" for v in row.get("params", {}).values()) or "-"
    speeds = sorted(r[i]["executions_per_s"] for r in rows)
    print(f"{sys.argv[1].split('/')[-1]:<34} {label:<8} {row['executions']:>10} {row['pruned']:>8} "
          f"{str(row['exhaustive']):>10}  {speeds[0]:,.0f} .. {speeds[-1]:,.0f}  workers={row['workers']}")
PY
}
for f in scenarios/bench/mc-mutex3.yaml scenarios/bench/mc-four-threads.yaml scenarios/bench/mc-four-threads-7.yaml \
  scenarios/bench/mc-fib.yaml scenarios/bench/mc-fib-tso.yaml; do
  report "$f"
done
workers=2
for f in scenarios/bench/mc-four-threads.yaml scenarios/bench/mc-four-threads-7.yaml; do
  report "$f"
done
