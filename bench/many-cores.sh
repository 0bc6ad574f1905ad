#!/usr/bin/env bash
# The figures that this workplace's 2-vCPU VM cannot give, in one run on a machine with more
# idle cores (issues 20, 24 and 25): the parallel dfs with 2 workers against 1 on idle cores,
# with up to 16, and on every core with other splits (--split); the distributed dfs on 1 to
# 16 ranks; the native ring, header scan and lock-profiling cost on that machine. Each part
# has a time limit, so that one slow part leaves the next its turn, and each part's table is
# also written to OUT (default out/many-cores).
#
# Usage: bench/many-cores.sh. LOCKSTEP names the binary (default build/bin/lockstep); on a
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

# Issue 20: "with 2 workers on 2 idle cores the search must be at least 1.7 times faster than
# with 1". Alternating runs, three of each; the machine's other cores are idle.
two_workers() {
  local f t1 t2
  printf '| scenario | run | 1 worker s | 2 workers s | speed-up |\n|---|---:|---:|---:|---:|\n'
  for f in scenarios/bench/mc-four-threads.yaml "$(one_row scenarios/bench/mc-four-threads-7.yaml sc "$work")" \
    "$(one_row scenarios/bench/mc-four-threads-7.yaml tso "$work")" scenarios/bench/mc-fib.yaml scenarios/bench/mc-fib-tso.yaml; do
    for run in 1 2 3; do
      t1=$(seconds "$LOCKSTEP" check "$f" --quiet --workers 1 --out-dir "$work/o")
      t2=$(seconds "$LOCKSTEP" check "$f" --quiet --workers 2 --out-dir "$work/o")
      printf '| %s | %d | %s | %s | %.2fx |\n' "$(basename "$f")" "$run" "$t1" "$t2" "$(python3 -c "print($t1 / $t2)")"
    done
  done
}

# The same search with more workers: how far one process scales.
more_workers() {
  local f=bench/distributed/mc-four-threads-7-tso.yaml n t base=
  printf '| workers | s | speed-up | efficiency |\n|---:|---:|---:|---:|\n'
  for n in 1 2 4 8 16; do
    ((n <= cores)) || break
    t=$(seconds "$LOCKSTEP" check "$f" --quiet --workers "$n" --executions 1000000000 --out-dir "$work/o")
    base=${base:-$t}
    python3 -c "s = $base / $t; print(f'| $n | $t | {s:.2f}x | {s / $n:.2f} |')"
  done
}

# The same search on every core, splitting fewer or more levels than the default (1 + log2 of
# the workers: 5 on 16): fewer, larger tasks against more, smaller ones.
splits() {
  local f=bench/distributed/mc-four-threads-7-tso.yaml split t
  printf '| workers | --split | s |\n|---:|---:|---:|\n'
  for split in 2 3 4 5 6; do
    t=$(seconds "$LOCKSTEP" check "$f" --quiet --workers "$cores" --split "$split" --executions 1000000000 --out-dir "$work/o")
    printf '| %d | %d | %s |\n' "$cores" "$split" "$t"
  done
}

ranks() {
  local counts=1 n
  for n in 2 4 8 16; do ((n <= cores)) && counts+=",$n"; done
  bench/distributed.sh "$counts" bench/distributed/mc-four-threads-7-tso.yaml
  ONE_PROCESS=0 bench/distributed.sh "$counts" bench/distributed/mc-four-threads-8-tso.yaml
}

native() {
  "$LOCKSTEP" native scenarios/os/ring-native.yaml
  sed 's/threads: 2,/threads: 8,/' scenarios/os/ring-native.yaml >"$work/ring8.yaml"
  "$LOCKSTEP" native "$work/ring8.yaml"
  "$LOCKSTEP" native scenarios/os/header-scan-native.yaml
  bench/lock-profile-overhead.sh 3
}

part() {  # part NAME SECONDS FUNCTION: run it under a time limit, tee its output
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
