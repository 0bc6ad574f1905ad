#!/usr/bin/env bash
# What a checkpoint saves: runs a checkpointed parallel dfs, kills it with SIGKILL after
# SECONDS, resumes it from its checkpoint and prints the checkpoint's size, the resume's time
# and its counts (which must be the uninterrupted run's).
#
#   bench/kill-resume.sh SCENARIO SECONDS [WORKERS [PERIOD_S]]
#   RANKS=2 bench/kill-resume.sh ...   (under mpirun -np RANKS, every rank killed at once,
#                                       and resumed on as many ranks)
#
# bench/README.md ("Checkpoints of a parallel search") used mc-four-threads-7 under TSO:
#   sed '/^sweep:/d; s/^memory_model: sc/memory_model: tso/' scenarios/bench/mc-four-threads-7.yaml > /tmp/mc7tso.yaml
#   bench/kill-resume.sh /tmp/mc7tso.yaml 5
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:?scenario file}
at=${2:?seconds before the kill}
workers=${3:-2}
period=${4:-1}
bin=${LOCKSTEP_BIN:-build/bin/lockstep}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
launch=()
if [[ -n ${RANKS:-} ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  launch=(mpirun -np "$RANKS" --oversubscribe)
fi
# In a session of its own, so that one signal to its group kills mpirun and every rank.
setsid "${launch[@]}" "$bin" check "$scenario" --workers "$workers" -q --checkpoint "$out/ckpt.json" \
  --checkpoint-every "$period" &
pid=$!
sleep "$at"
if ! kill -9 -- "-$pid" 2>/dev/null; then echo "the search ended before ${at} s: nothing to resume" >&2; exit 1; fi
wait "$pid" 2>/dev/null || true
start=$(date +%s.%N)
"${launch[@]}" "$bin" check "$scenario" --workers "$workers" -q --resume "$out/ckpt.json" --json "$out/resumed.json" || true
end=$(date +%s.%N)
python3 - "$out/ckpt.json" "$out/resumed.json" "$at" "$start" "$end" <<'PY'
import json, os, sys
ckpt, resumed, at, start, end = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
r = json.load(open(resumed))
units = json.load(open(ckpt))["search"]["units"]
running = sum(1 for u in units if len(u) == 4)
print(f"killed at {at} s: checkpoint {os.path.getsize(ckpt):,} bytes ({len(units) - running} finished units, "
      f"{running} running states); resume {end - start:.2f} s: {r['executions']:,} executions, "
      f"exhaustive {r['exhaustive']}, {r['result']}")
PY
