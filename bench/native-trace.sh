#!/usr/bin/env bash
# What tracing costs a native run (issue 22): futex-hash ops/s traced against untraced, on
# scenarios/futex/native-hash.yaml (every design) and a one-row variant of it (its default
# design, baseline), in alternating pairs so the VM's drift hits both sides alike. Prints
# each row's median untraced and traced ops/s and the median and lowest of the per-pair
# ratios traced/untraced. The target is a ratio of at least 0.80 (bench/README.md, "Native
# traces"). First it runs the per-note micro-benchmarks (bench_native_trace.cpp).
#
#   bench/native-trace.sh [PAIRS [RUNTIME_US]]      defaults: 5 pairs, 50000 us a row
#
# RUNTIME_US shortens the scenario's 200 ms window so that each thread's buffer
# (TRACE_BUFFER events, default 4 Mi) holds the whole run: the figure is the cost of
# recording every event, not of a buffer that filled early and stopped recording. The
# script prints each traced run's dropped events; a run that dropped some says so.
# The traces go to a temporary directory, removed at the end (a traced row writes about
# 100 bytes per event).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
runtime_us=${2:-50000}
buffer=${TRACE_BUFFER:-4194304}
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep lockstep_bench_native_trace >/dev/null
build/bin/lockstep_bench_native_trace --benchmark_min_time=0.2 2>/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e "s/runtime_us: 200000/runtime_us: $runtime_us/" scenarios/futex/native-hash.yaml >"$work/sweep.yaml"
sed -e '/^sweep:/,$d' "$work/sweep.yaml" >"$work/one.yaml"
for scenario in one sweep; do
  for ((p = 1; p <= pairs; p++)); do
    # Alternate which side runs first.
    for side in $( ((p % 2)) && echo "untraced traced" || echo "traced untraced"); do
      args=()
      [[ $side == traced ]] && args=(--save-traces --out-dir "$work/t" --trace-buffer "$buffer")
      build/bin/lockstep native "$work/$scenario.yaml" -q --json "$work/$scenario-$side-$p.json" "${args[@]}" 2>/dev/null
      if [[ $side == traced ]]; then
        for t in "$work"/t/*.trace.jsonl; do head -1 "$t" >>"$work/$scenario-headers-$p.txt"; done
        rm -rf "$work/t"
      fi
    done
  done
done
python3 - "$work" "$pairs" "$runtime_us" "$buffer" <<'EOF'
import json, statistics, sys
work, pairs, runtime_us, buffer = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def rows(path):
    d = json.load(open(path))
    return [(r.get('design', d.get('design')), r['ops_per_s']) for r in d.get('rows', [d])]
print(f"futex-hash, {pairs} pairs, {runtime_us} us a row, trace buffers of {buffer} events a thread")
print(f"{'scenario':8} {'design':16} {'untraced M ops/s':>17} {'traced M ops/s':>15} {'ratio median':>13} {'ratio min':>10}")
for scenario in ('one', 'sweep'):
    untraced = [rows(f"{work}/{scenario}-untraced-{p}.json") for p in range(1, pairs + 1)]
    traced = [rows(f"{work}/{scenario}-traced-{p}.json") for p in range(1, pairs + 1)]
    for i, (design, _) in enumerate(untraced[0]):
        u = [run[i][1] for run in untraced]
        t = [run[i][1] for run in traced]
        ratios = [b / a for a, b in zip(u, t) if a > 0]
        print(f"{scenario:8} {design:16} {statistics.median(u)/1e6:17.2f} {statistics.median(t)/1e6:15.2f} "
              f"{statistics.median(ratios):13.2f} {min(ratios):10.2f}")
    dropped = [json.loads(line)['dropped_events'] for p in range(1, pairs + 1)
               for line in open(f"{work}/{scenario}-headers-{p}.txt")]
    print(f"{scenario:8} traced rows that dropped events: {sum(1 for d in dropped if d)} of {len(dropped)}")
EOF
