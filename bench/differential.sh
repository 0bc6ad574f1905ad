#!/usr/bin/env bash
# The long differential run (docs/model-checking.md, "Differential testing"): random
# programs checked by the reference enumerator, dfs with 1, 2 and 3 workers, naive and smt (Z3),
# under SC and x86-TSO, with larger caps than `make test`'s 150 programs. Mismatches are
# written to out/difftest-long/ as scenario files. Usage: bench/differential.sh [PROGRAMS [SEED]]
set -euo pipefail
cd "$(dirname "$0")/.."
programs=${1:-2000}
seed=${2:-100000}
cmake --preset release >/dev/null
cmake --build --preset release --target lockstep_difftest >/dev/null
exec build/bin/lockstep_difftest --seed "$seed" --programs "$programs" --max-runs 2000000 --max-states 2000000 \
  --out out/difftest-long
