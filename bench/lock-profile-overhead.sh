#!/usr/bin/env bash
# What native lock profiling costs (docs/os.md, "Lock profiling"): the futex hash table
# designs (scenarios/futex/native-hash.yaml, table designs only) and the file I/O policies on
# one page (a writer and a reader, exclusive and range locks), each run REPS times with and
# without --lock-profile, alternating, 200 ms a run. Prints each row's median ops/s both ways
# and the ratio; the seed's figure for FreeBSD's rewritten LOCK_PROFILING is about 1/5 of full
# speed on kernel-heavy workloads (1/10 before the rewrite). Usage: bench/lock-profile-overhead.sh [REPS]
# Run it idle.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
lockstep=${LOCKSTEP:-build/bin/lockstep}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed 's/design.futex: \[.*\]/design.futex: [baseline, both, linux-3.14]/' scenarios/futex/native-hash.yaml >"$out/hash.yaml"
cat >"$out/fileio.yaml" <<'YAML'
name: fileio natively, a writer and a reader on one page
platform: native
design: {fileio: {offset: f-pos-lock, data: exclusive, page_size: 4096}}
workload:
  kind: fileio
  size: 4096
  runtime_us: 200000
  threads:
    - {name: w0, cpu: 0, ops: [{pwrite: {at: 0, bytes: 1024}}]}
    - {name: r0, cpu: 1, ops: [{pread: {at: 2048, bytes: 1024}}]}
expect: pass
sweep:
  design.fileio.data: [exclusive, range-locks]
YAML
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
for f in hash fileio; do
  for i in $(seq 1 "$reps"); do
    "$lockstep" native "$out/$f.yaml" --quiet --json "$out/$f-plain-$i.json"
    "$lockstep" native "$out/$f.yaml" --quiet --json "$out/$f-prof-$i.json" --lock-profile "$out/$f-$i.csv"
  done
done
python3 - "$out" "$reps" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
print("| workload | row | ops/s without | ops/s profiled | profiled / without |")
print("|---|---|---:|---:|---:|")
for f in ("hash", "fileio"):
    def rows(kind):
        runs = [json.load(open(f"{out}/{f}-{kind}-{i}.json"))["rows"] for i in range(1, reps + 1)]
        return [(r[0]["params"], [run[k]["ops_per_s"] for run in runs]) for k, r in enumerate(zip(*runs))]
    for (params, plain), (_, prof) in zip(rows("plain"), rows("prof")):
        a, b = statistics.median(plain), statistics.median(prof)
        print(f"| {f} | {' '.join(f'{k}={v}' for k, v in params.items())} | {a:,.0f} | {b:,.0f} | {b / a:.2f} |")
PY
