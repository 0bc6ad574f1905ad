#!/usr/bin/env bash
# The viewer on about a million events: records scenarios/bench/long/million-events.yaml's trace
# (once; out/bench/), then times opening it and painting frames (bench_viewer.cpp).
# Figures and targets: bench/README.md, "Viewer".
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep lockstep_bench_viewer >/dev/null
trace=out/bench/million-events.trace.jsonl
if [[ ! -s $trace ]]; then
  mkdir -p out/bench
  build/bin/lockstep run scenarios/bench/long/million-events.yaml --json out/bench/million-events.json --trace "$trace" >/dev/null
fi
echo "trace: $trace ($(wc -l <"$trace") lines, $(du -h "$trace" | cut -f1))"
LOCKSTEP_VIEWER_TRACE=$trace build/bin/lockstep_bench_viewer "$@"
