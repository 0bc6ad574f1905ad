#!/usr/bin/env bash
# Builds and runs the engine benchmarks; prints Google Benchmark's table.
# items_per_second is: switches/s (BM_BoostFiberSwitch, BM_EngineFiberSwitch), simulated steps/s
# (BM_SimStepWithSwitch), executions/s (BM_ExecutionsTwoThreads), simulated memory
# operations/s (BM_SimOpsMachineModel, BM_SimOpsFlat, and BM_SimSpeedScenario: the
# execution of scenarios/bench/sim-speed.yaml). Targets: bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep_bench_engine >/dev/null
build/bin/lockstep_bench_engine --benchmark_min_time=0.5 "$@"
