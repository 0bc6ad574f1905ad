#!/usr/bin/env bash
# Worst-case futex keys (docs/futex.md, "Colliding keys"): perf bench futex hash with two
# processes, the first on words whose keys Z3 chose to share one bucket, the second on its own
# words; every table design, simulated on barcelona-4s (16 threads), then natively on this
# host's CPUs with the user-space tables. Prints each process's ops/s with default and with
# colliding keys, and the seconds Z3 took (the rows' elapsed time is nearly all solver).
# Usage: bench/colliding-keys.sh. Run it idle: the native half measures this host.
set -euo pipefail
cd "$(dirname "$0")/.."
lockstep=build/bin/lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat >"$out/sim.yaml" <<'YAML'
name: colliding keys, every design, barcelona-4s
machine: {preset: barcelona-4s}
design: {futex: baseline}
workload: {kind: futex-hash, threads: 16, futexes: 8, runtime_us: 20, processes: 2, keys: colliding, key_count: 8,
           colliding_processes: 1}
strategy: {kind: timed, seed: 1, max_steps: 1000000000}
expect: pass
sweep:
  workload.keys: [default, colliding]
  design.futex: [baseline, linux-3.14, numa, linux-6.16-private]
YAML
cpus=$(nproc)
cat >"$out/native.yaml" <<YAML
name: colliding keys natively, user-space tables
platform: native
design: {futex: baseline}
workload: {kind: futex-hash, threads: $((2 * cpus)), cpus: $cpus, futexes: 8, runtime_us: 500000, processes: 2,
           keys: colliding, key_count: 8, colliding_processes: 1}
expect: pass
sweep:
  workload.keys: [default, colliding]
  design.futex: [baseline, linux-3.14, linux-6.16-private]
YAML
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$lockstep" run "$out/sim.yaml" --quiet --csv "$out/sim.csv"
"$lockstep" native "$out/native.yaml" --quiet --csv "$out/native.csv"
python3 - "$out/sim.csv" "$out/native.csv" <<'PY'
import csv, sys
for path, title in zip(sys.argv[1:], ("simulated, barcelona-4s, 2 x 8 threads", "native, this host, user-space tables")):
    rows = list(csv.DictReader(open(path)))
    print(f"\n{title}")
    print(f"| design | buckets | p0 default | p0 colliding | p1 default | p1 (p0 colliding) | solver s |")
    print("|---|---|---|---|---|---|---|")
    by = {(r["keys"], r["design"]): r for r in rows}
    for design in dict.fromkeys(r["design"] for r in rows):
        d, c = by[("default", design)], by[("colliding", design)]
        m = lambda r, k: f"{float(r[k]) / 1e6:.2f} M"
        print(f"| {design} | {d['buckets']} | {m(d, 'ops_per_s_p0')} | {m(c, 'ops_per_s_p0')} | {m(d, 'ops_per_s_p1')} "
              f"| {m(c, 'ops_per_s_p1')} | {float(c['elapsed_s']) - float(d['elapsed_s']):.1f} |")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
