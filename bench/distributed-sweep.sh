#!/usr/bin/env bash
# A sweep spread over MPI ranks (docs/distributed.md, "Sweeps"): `lockstep run` of a sweep as
# one process and under `mpirun -np N` for N = 1 .. RANKS (default: the CPUs here). Checks
# that every run's CSV is the one process's (host times aside) and prints wall times, the
# speed-up over one rank and the efficiency per rank.
# Usage: bench/distributed-sweep.sh [RANKS [SCENARIO]] (default: scenarios/futex/hash-sweep.yaml,
# 20 rows). Run it idle. As root, Open MPI needs its allow-run-as-root variables: set here only.
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-$(nproc)}
scenario=${2:-scenarios/futex/hash-sweep.yaml}
lockstep=build/bin/lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(mpirun --version | head -1); $scenario"
source bench/lib.sh
# The CSV without its host-time column.
figures() { python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1])): print({k: v for k, v in r.items() if k != 'elapsed_s'})" "$1"; }
plain=$(seconds "$lockstep" run "$scenario" --quiet --out-dir "$out" --csv "$out/plain.csv")
echo "one process: $(($(wc -l <"$out/plain.csv") - 1)) rows, $plain s"
echo "| ranks | s | speed-up over 1 rank | efficiency |"
echo "|---:|---:|---:|---:|"
for n in $(seq 1 "$ranks"); do
  s=$(seconds mpirun --oversubscribe -np "$n" "$lockstep" run "$scenario" --quiet --out-dir "$out" --csv "$out/np$n.csv")
  [[ "$(figures "$out/np$n.csv")" == "$(figures "$out/plain.csv")" ]] || { echo "np $n: the CSV differs"; exit 1; }
  [[ $n -eq 1 ]] && base=$s
  python3 -c "b, s, n = $base, $s, $n; print(f'| {n} | {s} | {b / s:.2f}x | {b / s / n:.2f} |')"
done
