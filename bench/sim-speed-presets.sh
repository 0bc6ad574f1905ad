#!/usr/bin/env bash
# sim-speed (scenarios/bench/sim-speed.yaml: futex-hash, 32 threads, 200 us, timed) on every
# machine preset, and barcelona-8s with its probe filter as well, to separate what the engine
# costs (the flat machine) from what each machine's caches, coherence and links add: one row each with the operations an execution simulates, the median of
# BM_SimSpeedScenario's repetitions (M simulated memory operations per CPU second), and, with
# --instructions, the host instructions Engine::run spends per simulated operation for one
# execution (callgrind; they do not depend on the machine's load, as rates do).
#
#   bench/sim-speed-presets.sh [--instructions] [repetitions]     (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=0
if [[ "${1:-}" == "--instructions" ]]; then
  instructions=1
  shift
fi
reps="${1:-3}"
((reps >= 2)) || { echo "sim-speed-presets: repetitions must be 2 or more (the median needs them)" >&2; exit 2; }
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep_bench_engine lockstep >/dev/null
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
machines=()
for preset in $(build/bin/lockstep list | sed -n 's/^presets *//p' | tr -d ','); do
  case "$preset" in
    host) ;;  # the calibrated host needs a calibration file
    flat) machines+=("flat, cpus: 32") ;;
    barcelona-8s) machines+=("$preset" "barcelona-8s, probe_filter: true") ;;
    *) machines+=("$preset") ;;
  esac
done
printf '%-34s %14s %10s %14s\n' machine "ops/execution" "M ops/s" "instr/op"
for machine in "${machines[@]}"; do
  sed "s/^machine: .*/machine: {preset: $machine}/" scenarios/bench/sim-speed.yaml >"$scratch/scenario.yaml"
  out="$(LOCKSTEP_SIM_SPEED_SCENARIO="$scratch/scenario.yaml" build/bin/lockstep_bench_engine \
    --benchmark_filter=BM_SimSpeedScenario --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true 2>&1 |
    grep '_median')"
  rate="$(grep -o 'items_per_second=[0-9.]*[kMG]*' <<<"$out" | cut -d= -f2)"
  ops="$(grep -o 'sim_ops=[0-9.]*[kMG]*' <<<"$out" | cut -d= -f2)"
  per_op="-"
  if ((instructions)); then
    LOCKSTEP_SIM_SPEED_SCENARIO="$scratch/scenario.yaml" valgrind --tool=callgrind --callgrind-out-file="$scratch/cg.out" \
      "--toggle-collect=lockstep::sim::Engine::run*" build/bin/lockstep_bench_engine \
      --benchmark_filter=BM_SimSpeedScenario --benchmark_min_time=0.01 >/dev/null 2>&1
    sim_ops="$(build/bin/lockstep run "$scratch/scenario.yaml" -q --json "$scratch/r.json" >/dev/null &&
      python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sim_ops"])' "$scratch/r.json")"
    # Collected events are Engine::run's alone; divide by its calls (executions) and their operations.
    per_op="$(python3 - "$scratch/cg.out" "$sim_ops" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
total = int(next(l for l in lines if l.startswith("summary:")).split()[1])
names, runs = {}, set()
for l in lines:
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", l)
    if m and m.group(2):
        names[m.group(1)] = m.group(2)
        if m.group(2).startswith("lockstep::sim::Engine::run("):
            runs.add(m.group(1))
calls = 0
for i, l in enumerate(lines[:-1]):
    m = re.match(r"cfn=\((\d+)\)", l)
    if m and m.group(1) in runs and lines[i + 1].startswith("calls="):
        calls += int(lines[i + 1].split("=")[1].split()[0])
print(round(total / max(calls, 1) / int(sys.argv[2])))
PY
)"
  fi
  printf '%-34s %14s %10s %14s\n' "$machine" "$ops" "$rate" "$per_op"
done
