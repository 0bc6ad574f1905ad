#!/usr/bin/env bash
# The sim-speed execution (scenarios/bench/sim-speed.yaml: futex-hash, 32 threads, 200 us)
# on each machine model, to separate what the engine costs from what each machine's
# caches, coherence protocol and links add. Prints one row per machine: the median of
# BM_SimSpeedScenario's repetitions (M simulated memory operations per CPU second of one
# host core) and the operations one execution simulates. bench/README.md has the figures.
#
#   bench/sim-speed-matrix.sh [repetitions]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${1:-5}"
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep_bench_engine >/dev/null
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
printf '%-34s %12s %14s\n' machine "M ops/s" "ops/execution"
for machine in "flat, cpus: 32" "nehalem-2s" "barcelona-4s" "barcelona-8s, probe_filter: true" "barcelona-8s"; do
  sed "s/^machine: .*/machine: {preset: $machine}/" scenarios/bench/sim-speed.yaml >"$scratch/scenario.yaml"
  out="$(LOCKSTEP_SIM_SPEED_SCENARIO="$scratch/scenario.yaml" build/bin/lockstep_bench_engine \
    --benchmark_filter=SimSpeedScenario --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true 2>&1 |
    grep '_median')"
  rate="$(grep -o 'items_per_second=[0-9.]*[kMG]*' <<<"$out" | cut -d= -f2)"
  ops="$(grep -o 'sim_ops=[0-9.]*[kMG]*' <<<"$out" | cut -d= -f2)"
  printf '%-34s %12s %14s\n' "$machine" "$rate" "$ops"
done
