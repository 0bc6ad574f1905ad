#!/usr/bin/env bash
# The model checker's speed as the user meets it: the time to the verdict of an exhaustive
# dfs on the benchmark scenarios (the search's own seconds, `elapsed_s`), with its complete
# and abandoned executions and the rate, three runs each with one worker and with two (this
# machine is noisy: the range is the figure); then two workers against one in alternating
# pairs. The peer is GenMC 0.11: fib_bench with five rounds in 1.2 s under SC and 2.7 s under
# x86-TSO on this machine class.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
release_lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-26s %-8s %7s %10s %8s %10s  %-18s %s\n' scenario row workers executions pruned exhaustive "time to verdict" "executions/s (3 runs)"
report() {
  local f=$1 workers=$2
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
    times = sorted(r[i]["elapsed_s"] for r in rows)
    print(f"{sys.argv[1].split('/')[-1]:<26} {label:<8} {row['workers']:>7} {row['executions']:>10} {row['pruned']:>8} "
          f"{str(row['exhaustive']):>10}  {times[0]:.2f} .. {times[-1]:.2f} s{'':<4} {speeds[0]:,.0f} .. {speeds[-1]:,.0f}")
PY
}
for f in scenarios/bench/mc-mutex3.yaml scenarios/bench/mc-four-threads.yaml scenarios/bench/mc-four-threads-7.yaml \
  scenarios/bench/mc-fib.yaml scenarios/bench/mc-fib-tso.yaml; do
  report "$f" 1
  report "$f" 2
done
# Two workers against one, in alternating pairs (this VM's speed drifts by tens of percent
# from minute to minute, so a ratio of runs made seconds apart says more than two rates).
# Two workers against one, and against what this machine gives two independent processes:
# "pair" runs two one-worker searches at once, one pinned to each of the first two CPUs. On a
# machine that something else is using (another process, a busy host), a pair runs slower than one
# alone, and no parallel search beats the pair's throughput: "ceiling" is 2 x alone / pair.
# A two-worker speed-up is only comparable with the ceiling measured minutes around it.
speedup() {
  local f=$1 t1 t2 pair
  for run in 1 2 3; do
    t1=$(seconds taskset -c 0 build/bin/lockstep check "$f" --quiet --workers 1 --out-dir "$out")
    t2=$(seconds build/bin/lockstep check "$f" --quiet --workers 2 --out-dir "$out")
    pair=$(seconds bash -c "taskset -c 0 build/bin/lockstep check '$f' --quiet --workers 1 --out-dir '$out/a' &
                            taskset -c 1 build/bin/lockstep check '$f' --quiet --workers 1 --out-dir '$out/b'; wait")
    printf '%-34s run %d: 1 worker %6.2f s, 2 workers %6.2f s, speed-up %.2fx; pair %6.2f s, ceiling %.2fx\n' \
      "$(basename "$f")" "$run" "$t1" "$t2" "$(python3 -c "print($t1 / $t2)")" "$pair" "$(python3 -c "print(2 * $t1 / $pair)")"
  done
}
speedup scenarios/bench/mc-four-threads.yaml
speedup "$(one_row scenarios/bench/mc-four-threads-7.yaml sc "$out")"
speedup "$(one_row scenarios/bench/mc-four-threads-7.yaml tso "$out")"
speedup scenarios/bench/mc-fib.yaml
speedup scenarios/bench/mc-fib-tso.yaml
