#!/usr/bin/env bash
# Distributed search (docs/distributed.md, "Scaling"): exhaustive dfs searches as one process
# and under `mpirun -np N` for N = 1, 2, ... up to RANKS (default: the CPUs here), on
# scenarios/bench/long/: mc-four-threads-7-tso.yaml (2.2 million executions),
# mc-four-threads-8-tso.yaml (19.7 million) and mc-fib-7.yaml (fib_bench, seven rounds each:
# 25 million). Prints executions/s, the speed-up over one
# rank and the efficiency per rank, and checks that every run reports the same count.
# Usage: bench/distributed.sh [RANKS [SCENARIO...]]; RANKS is a count N (every count 1..N) or a
# comma-separated list of counts ("1,2,4,8,16"). LOCKSTEP names another binary (default
# build/bin/lockstep); ONE_PROCESS=0 skips the run without mpirun (the count check then
# compares the ranks' runs with each other). Run it idle. As root, Open MPI needs its allow-run-as-root variables: set here, for this
# script only.
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-$(nproc)}
shift || true
if [[ $ranks == *,* ]]; then counts=${ranks//,/ }; else counts=$(seq 1 "$ranks"); fi
scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(scenarios/bench/long/mc-four-threads-7-tso.yaml scenarios/bench/long/mc-four-threads-8-tso.yaml scenarios/bench/long/mc-fib-7.yaml)
lockstep=${LOCKSTEP:-build/bin/lockstep}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(mpirun --version | head -1)"
for scenario in "${scenarios[@]}"; do
echo
echo "$scenario"
[[ ${ONE_PROCESS:-1} == 0 ]] ||
  "$lockstep" check "$scenario" --executions 1000000000 --quiet --out-dir "$out" --json "$out/plain.json"
for n in $counts; do
  mpirun --oversubscribe -np "$n" "$lockstep" check "$scenario" --executions 1000000000 --quiet --out-dir "$out" \
    --json "$out/np$n.json"
  # A line per run as it ends, so that a run cut short by a time limit still leaves figures.
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); r = d.get('rows', [d])[0]
print(f\"{sys.argv[2]} ranks: {r['executions']:,} executions in {r['elapsed_s']:.1f} s\")" "$out/np$n.json" "$n"
done
python3 - "$out" $counts <<'PY'
import json, os, sys
out, counts = sys.argv[1], [int(n) for n in sys.argv[2:]]
def row(name):
    d = json.load(open(f"{out}/{name}.json"))
    return d.get("rows", [d])[0]
if os.path.exists(f"{out}/plain.json"):
    plain = row("plain")
    print(f"one process: {plain['executions']:,} executions, {plain['elapsed_s']:.1f} s, "
          f"{plain['executions_per_s']:,.0f} executions/s")
else:
    plain = row(f"np{counts[0]}")
base_n = counts[0]
base = row(f"np{base_n}")["executions_per_s"] / base_n
print("| ranks | executions | units to other ranks | lent back to rank 0 | s | executions/s | speed-up | efficiency |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in counts:
    r = row(f"np{n}")
    assert r["executions"] == plain["executions"] and r["result"] == plain["result"], (n, r["executions"], plain["executions"])
    speed = r["executions_per_s"] / base
    print(f"| {n} | {r['executions']:,} | {r.get('remote_units', 0):,} | {r.get('remote_units_lent_back', 0):,} "
          f"| {r['elapsed_s']:.1f} | {r['executions_per_s']:,.0f} "
          f"| {speed:.2f}x | {speed / n:.2f} |")
PY
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
