#!/usr/bin/env bash
# CI stage: results must not depend on the number of MPI ranks (docs/distributed.md, "Why the
# results do not depend on the number of ranks"). Every bundled simulated scenario is checked
# as one plain process and under `mpirun -np N` (N = 2 and 4 by default, on loopback), and
# everything each run reports must be the same: the result JSON member by member (verdicts,
# execution counts, pruned counts, depths, trace hashes, virtual times, counterexamples and
# their replay commands), every CSV row, and every file written to the output folder (the
# schedule files byte for byte). Only what measures the host or the launch may differ:
# elapsed seconds, rates per host second, the SMT solver's seconds, the rank count and how
# many units went to other ranks. cli.distributed in `make test` checks five scenarios this
# way; this stage checks them all (45 s in a fresh-clone .ci/run on the 2-vCPU VM, 13-14 s a run).
#
# Usage: scripts/ci-rank-independence.sh [LOCKSTEP] [RANKS...]   (default build/bin/lockstep 2 4)
# Skipped, with a line saying so, when the binary was built without MPI or mpirun is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
lockstep=${1:-build/bin/lockstep}
shift || true
counts=("$@")
((${#counts[@]} > 0)) || counts=(2 4)
if ! command -v mpirun >/dev/null || ! "$lockstep" check --help | grep -q -- '--mpi'; then
  echo "rank-independence: skipped ($lockstep has no MPI front end, or mpirun is missing)"
  exit 0
fi
mapfile -t scenarios < <(scripts/simulated-scenarios.sh)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Open MPI refuses root without these; set for this script only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PMIX_MCA_pcompress_base_silence_warning=1
run() {  # NAME COMMAND... : exit 1 (a scenario missed its expectation) is compared like any result
  local name=$1 start=$SECONDS
  shift
  "$@" check -q --out-dir "$scratch/$name" --json "$scratch/$name.json" "${scenarios[@]}" >/dev/null 2>"$scratch/$name.err" ||
    [ $? -eq 1 ] || { echo "FAIL: $name exited with an error:"; cat "$scratch/$name.err"; exit 1; }
  echo "rank-independence: $name: ${#scenarios[@]} scenarios in $((SECONDS - start)) s"
}
run plain "$lockstep"
for n in "${counts[@]}"; do run "np$n" timeout 900 mpirun -np "$n" "$lockstep"; done
python3 - "$scratch" "${counts[@]}" <<'PY'
import csv, filecmp, json, os, sys

scratch, counts = sys.argv[1], sys.argv[2:]
HOST = {"elapsed_s", "sim_ops_per_host_s", "executions_per_s", "solver_s", "ranks", "remote_units",
        "remote_progress_reports", "remote_units_lent_back", "parallel"}

def strip(x, folder):
    if isinstance(x, dict):
        return {k: strip(v, folder) for k, v in x.items() if k not in HOST}
    if isinstance(x, list):
        return [strip(v, folder) for v in x]
    # Paths into the run's own output folder name it: compare what follows.
    return x.replace(folder, "OUT") if isinstance(x, str) else x

def differences(a, b, where, out):
    if type(a) is not type(b):
        out.append(f"{where}: {a!r:.80} against {b!r:.80}")
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'the plain run' if k in a else 'the MPI run'}")
            else:
                differences(a[k], b[k], f"{where}/{k}", out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} entries against {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            differences(x, y, f"{where}[{i}]", out)
    elif a != b:
        out.append(f"{where}: {a!r:.80} against {b!r:.80}")

def csv_rows(path):
    return [{k: v for k, v in row.items() if k not in HOST} for row in csv.DictReader(open(path))]

plain_dir = os.path.join(scratch, "plain")
plain = strip(json.load(open(plain_dir + ".json")), plain_dir)
files = sorted(os.listdir(plain_dir))
bad = []
for n in counts:
    d = os.path.join(scratch, f"np{n}")
    differences(plain, strip(json.load(open(d + ".json")), d), f"np{n}", bad)
    if sorted(os.listdir(d)) != files:
        bad.append(f"np{n}: the output folder holds {sorted(set(os.listdir(d)) ^ set(files))} on one side only")
    for f in files:
        a, b = os.path.join(plain_dir, f), os.path.join(d, f)
        if not os.path.exists(b):
            continue
        if f.endswith(".csv"):
            if csv_rows(a) != csv_rows(b):
                bad.append(f"np{n}: {f} differs (host times aside)")
        elif not filecmp.cmp(a, b, shallow=False):
            bad.append(f"np{n}: {f} differs")
results = plain if isinstance(plain, list) else [plain]
rows = sum(len(r.get("rows") or [r]) for r in results)
for line in bad[:40]:
    print("DIFFERS", line)
print(f"rank-independence: {len(results)} scenarios ({rows} results, {len(files)} output files) on "
      f"1 process and {', '.join(counts)} ranks: {'all the same' if not bad else f'{len(bad)} differences'}")
sys.exit(1 if bad else 0)
PY
