#!/usr/bin/env bash
# What tracing costs a native run: futex-hash ops/s traced against untraced, on
# scenarios/futex/native-hash.yaml (every design) and a one-row variant of it (its default
# design, baseline). Each round runs the scenario untraced, traced (`--trace`) and traced with
# the outermost protocol steps (`--trace-steps`), in an order that rotates from round to round,
# so the VM's drift hits every side alike. Prints each row's median ops/s per side and the
# median and lowest of the per-round ratios to the untraced run. The target is a ratio of at
# least 0.80 for `--trace` (bench/README.md, "Native traces"). First it runs the per-note
# micro-benchmarks (bench_native_trace.cpp).
#
#   bench/native-trace.sh [ROUNDS [RUNTIME_US]]      defaults: 10 rounds, 20000 us a row
#
# TRACE_ARGS adds options to both traced sides (TRACE_ARGS="--trace-sample 4": one lock hold in
# four recorded).
#
# RUNTIME_US shortens the scenario's 200 ms window so that each thread's buffer
# (TRACE_BUFFER events, default 4 Mi) holds the whole run: the figure is the cost of
# recording every event, not of a buffer that filled early and stopped recording. The
# script counts the traced rows that dropped events anyway. The traces go to a temporary
# directory in /dev/shm (TRACE_DIR), removed as it goes: a traced row writes about 100 bytes
# an event, and on a disk the writeback of one row's trace would steal the CPUs from the
# next run (on this VM it did: the untraced kernel row ran at half speed after a traced one).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
runtime_us=${2:-20000}
buffer=${TRACE_BUFFER:-4194304}
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep lockstep_bench_native_trace >/dev/null
# The per-note and per-call figures; BM_FutexHashTraceCost (minutes) is run on its own:
# build/bin/lockstep_bench_native_trace --benchmark_filter=TraceCost
build/bin/lockstep_bench_native_trace --benchmark_min_time=0.2 --benchmark_filter='Clock|Getcpu|NoteLock|Eagain' 2>/dev/null
work=$(mktemp -d -p "${TRACE_DIR:-/dev/shm}")
trap 'rm -rf "$work"' EXIT
sed -e "s/runtime_us: 200000/runtime_us: $runtime_us/" scenarios/futex/native-hash.yaml >"$work/sweep.yaml"
sed -e '/^sweep:/,$d' "$work/sweep.yaml" >"$work/one.yaml"
sides=(untraced traced steps)
for scenario in one sweep; do
  for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < 3; k++)); do
      side=${sides[(r + k) % 3]}
      args=()
      [[ $side != untraced ]] && args=(--save-traces --out-dir "$work/t" --trace-buffer "$buffer")
      [[ $side == steps ]] && args+=(--trace-steps)
      # shellcheck disable=SC2206  # TRACE_ARGS is a list of options
      [[ $side != untraced ]] && args+=(${TRACE_ARGS:-})
      sync
      build/bin/lockstep native "$work/$scenario.yaml" -q --json "$work/$scenario-$side-$r.json" "${args[@]}" 2>/dev/null
      if [[ $side != untraced ]]; then
        for t in "$work"/t/*.trace.jsonl; do head -1 "$t" >>"$work/$scenario-headers.txt"; done
        rm -rf "$work/t"
      fi
    done
  done
done
python3 - "$work" "$rounds" "$runtime_us" "$buffer" <<'PY'
import json, statistics, sys
work, rounds, runtime_us, buffer = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def rows(path):
    d = json.load(open(path))
    return [(r.get('design', d.get('design')), r['ops_per_s']) for r in d.get('rows', [d])]
print(f"futex-hash, {rounds} rounds, {runtime_us} us a row, trace buffers of {buffer} events a thread")
print(f"{'scenario':8} {'design':16} {'untraced M/s':>12} {'traced M/s':>11} {'ratio med':>9} {'min':>5}"
      f" {'steps M/s':>10} {'ratio med':>9} {'min':>5}")
for scenario in ('one', 'sweep'):
    runs = {side: [rows(f"{work}/{scenario}-{side}-{r}.json") for r in range(rounds)]
            for side in ('untraced', 'traced', 'steps')}
    for i, (design, _) in enumerate(runs['untraced'][0]):
        u = [run[i][1] for run in runs['untraced']]
        line = f"{scenario:8} {design:16} {statistics.median(u)/1e6:12.2f}"
        for side in ('traced', 'steps'):
            t = [run[i][1] for run in runs[side]]
            ratios = [b / a for a, b in zip(u, t) if a > 0]
            line += f" {statistics.median(t)/1e6:11.2f} {statistics.median(ratios):9.2f} {min(ratios):5.2f}"
        print(line)
    dropped = [json.loads(line)['dropped_events'] for line in open(f"{work}/{scenario}-headers.txt")]
    print(f"{scenario:8} traced rows that dropped events: {sum(1 for d in dropped if d)} of {len(dropped)}")
PY
