#!/usr/bin/env bash
# Running ahead changes no result (docs/architecture.md, "Running ahead"): every bundled timed
# scenario runs with it (the default) and without (LOCKSTEP_RUN_AHEAD=0), and each row must
# report the same verdict, counts, virtual time, trace hash and workload and machine figures;
# only host time and speed may differ. The traced re-run of each reported execution never
# runs ahead, and `lockstep run` already refuses a re-run that takes other steps; this compares
# everything else a row reports.
#
# Usage: scripts/check-run-ahead-independence.sh [LOCKSTEP] [SCENARIO...]
# Without scenarios: every simulated scenario (scripts/simulated-scenarios.sh) whose strategy
# is timed. CI runs that set; the long-running sweeps under scenarios/bench/long were checked
# by hand (bench/README.md, "Simulator speed").
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/bin/lockstep}
shift $(($# > 0 ? 1 : 0))
scenarios=("$@")
if ((${#scenarios[@]} == 0)); then
  while IFS= read -r f; do
    grep -q '^strategy:.*kind: timed' "$f" && scenarios+=("$f")
  done < <(scripts/simulated-scenarios.sh)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for side in ahead queued; do
  start=$(date +%s)
  if [ "$side" = queued ]; then export LOCKSTEP_RUN_AHEAD=0; fi
  # A calibration on this host must not decide what `preset: host` simulates differently
  # between the sides: none is read.
  LOCKSTEP_CALIBRATION_DIR="$scratch/no-calibration" "$bin" run -q --out-dir "$scratch/$side" \
    --json "$scratch/$side.json" "${scenarios[@]}" >/dev/null 2>"$scratch/$side.err" ||
    [ $? -eq 1 ] || { echo "FAIL: $bin exited with an error ($side):"; cat "$scratch/$side.err"; exit 1; }
  echo "$side: ${#scenarios[@]} scenarios in $(($(date +%s) - start)) s"
done
python3 - "$scratch/ahead.json" "$scratch/queued.json" <<'PY'
import json, sys

HOST = {"elapsed_s", "sim_ops_per_host_s", "executions_per_s"}

def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in HOST}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x

def rows(path):
    doc = json.load(open(path))
    results = doc if isinstance(doc, list) else doc.get("results", [doc])
    out = {}
    for r in results:
        for i, row in enumerate(r.get("rows", [r]) or [r]):
            out[f"{r.get('scenario')}[{i}]"] = strip(row)
    return out

a, b = rows(sys.argv[1]), rows(sys.argv[2])
bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
for k in bad:
    x, y = a.get(k) or {}, b.get(k) or {}
    fields = sorted(f for f in set(x) | set(y) if x.get(f) != y.get(f))
    print(f"DIFFERS {k}: {', '.join(fields)}")
print(f"{len(a)} rows compared: {'all the same' if not bad else f'{len(bad)} differ'}")
sys.exit(1 if bad else 0)
PY
