#!/usr/bin/env bash
# smt against dfs on random thread programs of exactly 4 threads x 8 operations (which is
# faster): each program under sc and tso, its assertions checked by dfs and by smt
# (`lockstep check`, the row's elapsed_s: for smt that includes creating Z3's context, the
# encoding, the solver and the witness's traced replay). A dfs run past LIMIT seconds counts
# as unfinished. Usage: bench/smt-vs-dfs.sh [PROGRAMS [SEED [LIMIT]]]. Run it idle.
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-20}
seed=${2:-5000}
limit=${3:-60}
lockstep=build/bin/lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bin/lockstep_difftest --seed "$seed" --programs "$programs" --threads 4 --ops 8 --exact-shape --generate-only \
  --out "$out/programs" >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$out"/programs/*.yaml; do
  b=$(basename "$f" .yaml)
  sed 's/^strategy: .*/strategy: {kind: dfs, executions: 100000000}/' "$f" >"$out/$b-dfs.yaml"
  sed 's/^strategy: .*/strategy: {kind: smt}/' "$f" >"$out/$b-smt.yaml"
  for e in dfs smt; do
    timeout "$limit" "$lockstep" check "$out/$b-$e.yaml" --quiet --out-dir "$out/o" --json "$out/$b-$e.json" || true
  done
done
python3 - "$out" "$limit" <<'PY'
import glob, json, os, statistics, sys
out, limit = sys.argv[1], float(sys.argv[2])
rows = []
for f in sorted(glob.glob(f"{out}/programs/*.yaml")):
    b = os.path.basename(f)[:-5]
    def load(e):
        p = f"{out}/{b}-{e}.json"
        return json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) > 0 else None
    d, s = load("dfs"), load("smt")
    rows.append((b, d, s))
print("| program | verdict (dfs / smt) | dfs executions | dfs s | smt s | faster |")
print("|---|---|---:|---:|---:|---|")
wins = {"dfs": 0, "smt": 0}
ratios = []
for b, d, s in rows:
    dv = d["result"] if d else f"over {limit:.0f} s"
    sv = s["result"] if s else "none"
    ds = d["elapsed_s"] if d else None
    ss = s["elapsed_s"] if s else None
    faster = "dfs" if ds is not None and (ss is None or ds < ss) else "smt"
    wins[faster] += 1
    if ds is not None and ss is not None:
        ratios.append(ds / ss)
    print(f"| {b} | {dv} / {sv} | {d['executions'] if d else '-'} | {ds if ds is None else f'{ds:.3f}'} | "
          f"{ss if ss is None else f'{ss:.3f}'} | {faster} |")
print(f"\n{len(rows)} programs: dfs faster on {wins['dfs']}, smt on {wins['smt']}; "
      f"median dfs/smt time ratio {statistics.median(ratios):.2f}" if ratios else "")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
