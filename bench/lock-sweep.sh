#!/usr/bin/env bash
# One lock, every thread (scenarios/bench/long/lock-sweep.yaml) on each preset: acquisitions per
# second, in millions, for TAS, TTAS, ticket, MCS and CLH at 1 to 48 threads, one per core.
# Usage: bench/lock-sweep.sh [PRESET...]  (default: the presets held to published latencies)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
cd "$here/.."
release_lockstep
presets=("$@")
[[ ${#presets[@]} -gt 0 ]] || presets=(opteron-6172-4s xeon-e7-8867l-8s skylake-sp-2s cascade-lake-2s ice-lake-2s epyc-7r13-2s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for preset in "${presets[@]}"; do
  sed "s/^machine: {preset: [a-z0-9-]*}/machine: {preset: $preset}/" scenarios/bench/long/lock-sweep.yaml >"$work/$preset.yaml"
  build/bin/lockstep run "$work/$preset.yaml" --quiet --out-dir "$work/out" --json "$work/$preset.json"
  python3 - "$work/$preset.json" "$preset" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
table = {}
for r in rows:
    p = r["params"]
    table.setdefault(p["design.spinlock"], {})[int(p["workload.threads"])] = r["acquisitions_per_s"] / 1e6
threads = sorted({t for v in table.values() for t in v})
print(f"{sys.argv[2]}: M acquisitions/s")
print("  lock    " + "".join(f"{t:>8}" for t in threads))
for lock, by in table.items():
    print(f"  {lock:<7} " + "".join(f"{by[t]:>8.2f}" for t in threads))
PY
done
