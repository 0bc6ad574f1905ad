#!/usr/bin/env bash
# Two builds of lockstep_bench_engine compared on the sim-speed execution, machine by machine,
# in alternation: A, B, A, B, ... On a shared or virtual machine single runs move by tens of
# percent with the load, so each row reports both medians and the median of the per-pair
# ratios B/A, which a slow phase affects far less. Build the other binary in a worktree:
#
#   git worktree add /tmp/old <commit> && (cd /tmp/old && cmake --preset release &&
#     cmake --build build --target lockstep_bench_engine)
#   bench/compare-builds.sh /tmp/old/build/bin/lockstep_bench_engine build/bin/lockstep_bench_engine [pairs]
#
# FIRST_RUN=1 times one execution per process (a process's first run, as `lockstep run`
# reports) instead of Google Benchmark's repetitions. BEST_OF=N makes each side of a pair
# the best of N repetitions (interference on a shared machine only ever slows a run down,
# so the best of a few is steadier than one).
#
# Both builds run pinned to one CPU (the last one, or BENCH_CPU): on the two-vCPU VM this
# project is developed on, one vCPU at a time runs 30-45% slower than the other (which one
# changes over the day), so unpinned pairs mixed the two speeds.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 BENCH_A BENCH_B [pairs]" >&2; exit 2; }
a="$1"
b="$2"
pairs="${3:-5}"
cpu="${BENCH_CPU:-$(($(nproc) - 1))}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
rate() {  # binary, scenario -> M ops per second
  local min_time=0.3
  local best_of="${BEST_OF:-1}"
  [ -n "${FIRST_RUN:-}" ] && min_time=0.000001 && best_of=1
  [ "$best_of" -gt 1 ] && min_time=0.15
  LOCKSTEP_SIM_SPEED_SCENARIO="$2" taskset -c "$cpu" "$1" --benchmark_filter=SimSpeedScenario --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$best_of" --benchmark_report_aggregates_only=false 2>&1 |
    grep '^BM_SimSpeedScenario ' | grep -o 'items_per_second=[0-9.]*M' | grep -o '[0-9.]*' | sort -n | tail -1
}
printf '%-34s %8s %8s %8s\n' machine "A M/s" "B M/s" "B/A"
for machine in "flat, cpus: 32" "nehalem-2s" "barcelona-4s" "barcelona-8s, probe_filter: true" "barcelona-8s"; do
  sed "s/^machine: .*/machine: {preset: $machine}/" scenarios/bench/sim-speed.yaml >"$scratch/scenario.yaml"
  for _ in $(seq "$pairs"); do
    echo "$(rate "$a" "$scratch/scenario.yaml") $(rate "$b" "$scratch/scenario.yaml")"
  done | python3 -c '
import statistics, sys
pairs = [tuple(map(float, line.split())) for line in sys.stdin]
print("%-34s %8.2f %8.2f %8.3f" % (sys.argv[1], statistics.median(p[0] for p in pairs),
      statistics.median(p[1] for p in pairs), statistics.median(p[1] / p[0] for p in pairs)))' "$machine"
done
