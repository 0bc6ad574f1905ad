#!/usr/bin/env bash
# The figures that this workplace's 2-vCPU VM cannot give, in one run on a machine with more
# idle cores (issues 20, 24 and 25): the parallel dfs with 2 workers against 1 on idle cores,
# with up to 16, and on every core with other splits (--split); the distributed dfs on 1 to
# 16 ranks; the native ring, header scan and lock-profiling cost on that machine. Each part
# has a time limit, so that one slow part leaves the next its turn, and each part's table is
# also written to OUT (default out/many-cores).
#
# Usage: bench/many-cores.sh. PARTS lists the parts to run (default all: two-workers
# more-workers splits ranks native); each part's limit is NAME_S (TWO_WORKERS_S, ...).
# LOCKSTEP names the binary (default build/bin/lockstep); on a
# machine without the Debian packages, make a bundle here with scripts/portable-bundle.sh,
# carry it, `source BUNDLE/env.sh` there and set LOCKSTEP=lockstep.
set -uo pipefail
cd "$(dirname "$0")/.."
export LOCKSTEP=${LOCKSTEP:-build/bin/lockstep}
out=${OUT:-out/many-cores}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=$(nproc)

machine() {
  echo "$(date -u '+%F %T') UTC; $cores CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
  lscpu 2>/dev/null | grep -E '^(Model name|Thread|Core|Socket|NUMA node\(s\)|L3)' || true
  "$LOCKSTEP" --version
  mpirun --version 2>/dev/null | head -1 || echo "no mpirun"
}

source bench/lib.sh

# The target: with 2 workers on 2 idle cores the search is at least 1.7 times faster than
# with 1. Alternating runs, RUNS of each (3 for the 15-second one), pinned with taskset: one
# worker on CPU PIN1 (default 2), two on PIN2 (default 2,3); the machine's other cores are
# idle. "search" is the speed-up of the search alone (`executions_per_s`, without the
# process's start, the traced re-run and the output, about 30 ms); "idle" the share of the two
# workers' time they waited with nothing to run (`parallel.idle_thread_s` over twice the
# search's time). TWO_WORKERS_FILES replaces the list of scenarios.
two_workers() {
  local f t1 t2 runs pin1=${PIN1:-2} pin2=${PIN2:-2,3} files
  ((cores > 3)) || { pin1=0; pin2=0,1; }
  files=${TWO_WORKERS_FILES:-scenarios/bench/mc-fib.yaml scenarios/bench/mc-four-threads.yaml scenarios/bench/mc-fib-tso.yaml \
$(one_row scenarios/bench/mc-four-threads-7.yaml sc "$work") $(one_row scenarios/bench/mc-four-threads-7.yaml tso "$work")}
  printf '| scenario | run | 1 worker s | 2 workers s | speed-up | search | idle |\n|---|---:|---:|---:|---:|---:|---:|\n'
  for f in $files; do
    runs=${RUNS:-5}
    [[ $f != *7-tso* ]] || runs=3
    for ((run = 1; run <= runs; ++run)); do
      t1=$(seconds taskset -c "$pin1" "$LOCKSTEP" check "$f" --quiet --workers 1 --out-dir "$work/o" --json "$work/one.json")
      t2=$(seconds taskset -c "$pin2" "$LOCKSTEP" check "$f" --quiet --workers 2 --out-dir "$work/o" --json "$work/two.json")
      python3 -c "import json; a = json.load(open('$work/one.json')); b = json.load(open('$work/two.json'))
s = b['executions'] / b['executions_per_s']
print(f\"| $(basename "$f") | $run | $t1 | $t2 | {$t1 / $t2:.2f}x | {b['executions_per_s'] / a['executions_per_s']:.2f}x | {b['parallel']['idle_thread_s'] / 2 / s:.3f} |\")"
    done
  done
}

# The same search with more workers: how far one process scales, and what the workers did
# besides (the result's `parallel`: tasks, of them split on demand, idle thread-seconds).
more_workers() {
  local f=scenarios/bench/long/mc-four-threads-7-tso.yaml n t base=
  printf '| workers | s | speed-up | efficiency | tasks | on demand | idle |\n|---:|---:|---:|---:|---:|---:|---:|\n'
  for n in 1 2 4 8 16; do
    ((n <= cores)) || break
    t=$(seconds "$LOCKSTEP" check "$f" --quiet --workers "$n" --executions 1000000000 --out-dir "$work/o" --json "$work/w.json")
    base=${base:-$t}
    python3 -c "import json; p = json.load(open('$work/w.json')).get('parallel', {}); s = $base / $t
print(f\"| $n | $t | {s:.2f}x | {s / $n:.2f} | {p.get('tasks', 0)} | {p.get('split_on_demand', 0)} | {p.get('idle_thread_s', 0) / $n / $t:.3f} |\")"
  done
}

# The same search on every core with split levels fixed in advance (the default, 0, splits on
# demand only): more tasks handed out from the start against fewer.
splits() {
  local f=scenarios/bench/long/mc-four-threads-7-tso.yaml split t
  printf '| workers | --split | s |\n|---:|---:|---:|\n'
  for split in 0 2 5; do
    t=$(seconds "$LOCKSTEP" check "$f" --quiet --workers "$cores" --split "$split" --executions 1000000000 --out-dir "$work/o")
    printf '| %d | %d | %s |\n' "$cores" "$split" "$t"
  done
}

# Ranks: every power of two up to the cores on the 2.2-million search; RANKS8 (default the
# same) on the 19.7-million one, whose one-rank run alone takes minutes.
ranks() {
  local counts=1 n
  for n in 2 4 8 16; do ((n <= cores)) && counts+=",$n"; done
  bench/distributed.sh "$counts" scenarios/bench/long/mc-four-threads-7-tso.yaml
  ONE_PROCESS=0 bench/distributed.sh "${RANKS8:-$counts}" scenarios/bench/long/mc-four-threads-8-tso.yaml
}

native() {
  "$LOCKSTEP" native scenarios/os/ring-native.yaml
  sed 's/threads: 2,/threads: 8,/' scenarios/os/ring-native.yaml >"$work/ring8.yaml"
  "$LOCKSTEP" native "$work/ring8.yaml"
  "$LOCKSTEP" native scenarios/os/header-scan-native.yaml
  bench/lock-profile-overhead.sh 3
}

# part NAME SECONDS FUNCTION: run it under a time limit, tee its output. The function runs
# in a shell of its own, which inherits the settings given to this script (RUNS, RANKS8, ...).
part() {
  [[ " ${PARTS:-two-workers more-workers splits ranks native} " == *" $1 "* ]] || return 0
  echo
  echo "== $1 (at most $2 s)"
  timeout "$2" bash -c "$(declare -f seconds one_row "$3"); work='$work' cores=$cores $3" 2>&1 | tee "$out/$1.txt"
  echo "(rc ${PIPESTATUS[0]})"
}

machine | tee "$out/machine.txt"
"$LOCKSTEP" check scenarios/bench/mc-four-threads.yaml --quiet --out-dir "$work/o" || exit 1
part two-workers "${TWO_WORKERS_S:-150}" two_workers
part more-workers "${MORE_WORKERS_S:-60}" more_workers
part splits "${SPLITS_S:-40}" splits
part ranks "${RANKS_S:-260}" ranks
part native "${NATIVE_S:-50}" native
