#!/usr/bin/env bash
# The generated x86 litmus tests (tests/litmus/diy.py: 433 critical cycles of two to four
# threads, with their x86-TSO verdicts from the model's rule, not from any checker) decided
# four ways: dfs and smt (Z3, a second engine sharing no code with dfs) under x86-TSO, where
# each must give the test's verdict (`lockstep check` exits 1 on any other), and dfs and smt
# under SC, where every critical cycle is forbidden. Usage: generated_test.sh LOCKSTEP SOURCE_DIR
set -euo pipefail
lockstep=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=$(python3 "$src/tests/litmus/diy.py" "$work/lit")
"$lockstep" import litmus "$work"/lit/*.litmus --kinds "$work/lit/kinds.txt" --out "$work/tso-dfs" -q
failures=0
for variant in tso-dfs tso-smt sc-dfs sc-smt; do
  mm=${variant%-*}
  st=${variant#*-}
  if [[ $variant != tso-dfs ]]; then
    # The same scenarios with another model and strategy; under SC every cycle is forbidden.
    python3 - "$work/tso-dfs" "$work/$variant" "$mm" "$st" <<'PY'
import os, sys
src, dst, mm, st = sys.argv[1:]
os.makedirs(dst, exist_ok=True)
for name in os.listdir(src):
    text = open(os.path.join(src, name)).read()
    text = text.replace("\nmemory_model: tso\n", f"\nmemory_model: {mm}\n")
    text = text.replace("\nstrategy: {kind: dfs}\n", f"\nstrategy: {{kind: {st}}}\n")
    if mm == "sc":
        text = text.replace("\nexpect: {reachable: cond}", "\nexpect: {unreachable: cond}")
    open(os.path.join(dst, name), "w").write(text)
PY
  fi
  start=$(date +%s.%N)
  if "$lockstep" check "$work/$variant"/*.yaml --quiet --out-dir "$work/out-$variant" --json "$work/$variant.json"; then
    verdict="every verdict as the model says"
  else
    verdict="MISMATCH"
    failures=$((failures + 1))
  fi
  python3 - "$work/$variant.json" "$variant" "$verdict" "$start" <<'PY'
import json, sys, time
runs = json.load(open(sys.argv[1]))
runs = runs if isinstance(runs, list) else [runs]
reach = sum(1 for r in runs if r["result"] == "reachable")
bad = [r["name"] for r in runs if not r["matched"]]
print(f"{sys.argv[2]}: {len(runs)} tests, {reach} reachable, {len(runs) - reach} unreachable; {sys.argv[3]}"
      + (f" (differ: {' '.join(bad[:10])})" if bad else "") + f"; {time.time() - float(sys.argv[4]):.1f} s")
PY
done
echo "$n generated tests; $failures variants with a mismatch"
[[ $failures -eq 0 ]]
