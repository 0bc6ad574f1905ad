#!/usr/bin/env bash
# End-to-end tests of docs/distributed.md: checkpoints (a run killed with SIGKILL midway and
# resumed ends with the uninterrupted counts; bad checkpoints are refused with exit 2) and,
# when lockstep was built with MPI, `mpirun -np 1, 2, 4` on loopback giving the counts,
# verdicts and counterexamples of a plain run, and a sweep's CSV, JSON and traces. Usage: distributed_test.sh LOCKSTEP SOURCE_DIR MPI(0|1)
set -uo pipefail
lockstep=$1
src=$2
have_mpi=$3
# shellcheck source=tests/cli/common.sh
source "$(dirname "$0")/common.sh"
# What must not depend on how a search ran: per row, the counts, verdict and counterexample.
summary() {
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get('rows', [d]):
    c = r.get('counterexample', {})
    print(r['result'], r['executions'], r['pruned'], r['exhaustive'], r['max_depth'], r['sim_ops'], c.get('steps'), c.get('preemptions'))
" "$1"
}

# Kills process $1 with SIGKILL 0.2 s after its checkpoint $2 first appears; fails if it had
# written its result $3 by then (the test would prove nothing). $4 names the run.
kill_midway() {
  for _ in $(seq 1 200); do [[ -s "$2" ]] && break; sleep 0.01; done
  sleep 0.2
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  if [[ -s "$3" ]]; then fail "$4 finished before it was killed: the test proved nothing"; fi
}
# The next execution a one-worker or sampling checkpoint goes on from.
next_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['search']['next'])" "$1"; }

# --- Checkpoints: killed midway, resumed, same counts as uninterrupted.
f=scenarios/bench/mc-four-threads.yaml
"$lockstep" check "$f" --quiet --out-dir "$work/plain" --json "$work/plain.json" || fail "plain run of $f"
"$lockstep" check "$f" --quiet --out-dir "$work/ck" --checkpoint "$work/run.ckpt" --checkpoint-every 0.05 \
  --json "$work/killed.json" &
kill_midway "$!" "$work/run.ckpt" "$work/killed.json" "the run"
next=$(next_of "$work/run.ckpt")
[[ $next -gt 0 ]] && pass || fail "the checkpoint holds no progress (next=$next)"
"$lockstep" check "$f" --quiet --out-dir "$work/ck" --resume "$work/run.ckpt" --json "$work/resumed.json"; code=$?
[[ $code -eq 0 ]] && pass || fail "resume: exit $code"
if [[ "$(summary "$work/resumed.json")" == "$(summary "$work/plain.json")" ]]; then pass
else fail "resumed from execution $next: $(summary "$work/resumed.json"), uninterrupted: $(summary "$work/plain.json")"; fi

# Going on from a checkpoint while keeping it current (--checkpoint and --resume naming one
# file, as the advice after a lost rank says) is not two outputs on one file: it runs.
cp "$work/run.ckpt" "$work/again.ckpt"
out=$("$lockstep" check "$f" --quiet --out-dir "$work/ck" --checkpoint "$work/again.ckpt" --resume "$work/again.ckpt" 2>&1); code=$?
[[ $code -eq 0 ]] && pass || fail "--checkpoint F --resume F: exit $code, '$out'"

# Refused with exit 2 and a message naming the file: not JSON, cut short, another scenario,
# another cap; and a strategy that keeps no checkpoint.
echo "garbage" >"$work/bad.ckpt"
out=$("$lockstep" check "$f" --resume "$work/bad.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ bad.ckpt:\ cannot\ resume.*not\ a\ lockstep\ checkpoint ]] && pass || fail "garbage checkpoint: exit $code, '$out'"
head -c 100 "$work/run.ckpt" >"$work/cut.ckpt"
out=$("$lockstep" check "$f" --resume "$work/cut.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ cut.ckpt:\ cannot\ resume ]] && pass || fail "cut checkpoint: exit $code, '$out'"
out=$("$lockstep" check scenarios/bench/mc-fib.yaml --resume "$work/run.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ other\ bytes ]] && pass || fail "another scenario's checkpoint: exit $code, '$out'"
out=$("$lockstep" check "$f" --executions 1000 --resume "$work/run.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ same\ --executions ]] && pass || fail "another cap: exit $code, '$out'"
# A checkpoint edited in its body (an emptied stack once resumed as "pass, exhaustive"):
# its digest no longer matches, exit 2 naming the file. Edited by someone who recomputes the
# digest too: an empty stack after executions, or a string where a stack entry belongs, is
# still refused, naming the file. Without a digest: refused.
edit() {  # in, out, python statement on d, recompute digest (1/0)
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
if sys.argv[4] == "1" or sys.argv[3] == "pass":
    d.pop("digest", None)
if sys.argv[4] == "1":
    d["digest"] = hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
json.dump(d, open(sys.argv[2], "w"))
PY
}
edit "$work/run.ckpt" "$work/same.ckpt" "pass" 1
out=$("$lockstep" check "$f" --quiet --out-dir "$work/ck" --resume "$work/same.ckpt" --json "$work/same.json" 2>&1); code=$?
[[ $code -eq 0 ]] && pass || fail "a checkpoint re-digested by the test's own rule: exit $code, '$out' (the digest rule differs)"
edit "$work/run.ckpt" "$work/emptied.ckpt" "d['search']['strategy']['stack'] = []; d['digest'] = json.load(open(sys.argv[1]))['digest']" 0
out=$("$lockstep" check "$f" --resume "$work/emptied.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ emptied.ckpt:\ cannot\ resume.*edited\ or\ damaged ]] && pass || fail "an emptied stack: exit $code, '$out'"
edit "$work/run.ckpt" "$work/forged.ckpt" "d['search']['strategy']['stack'] = []" 1
out=$("$lockstep" check "$f" --resume "$work/forged.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ forged.ckpt:\ cannot\ resume ]] && pass || fail "an emptied stack, digest recomputed: exit $code, '$out'"
edit "$work/run.ckpt" "$work/typed.ckpt" "d['search']['strategy']['stack'] = 'not a stack'" 1
out=$("$lockstep" check "$f" --resume "$work/typed.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ typed.ckpt:\ cannot\ resume ]] && pass || fail "a string for the stack: exit $code, '$out'"
edit "$work/run.ckpt" "$work/nodigest.ckpt" "pass" 0
out=$("$lockstep" check "$f" --resume "$work/nodigest.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ no\ digest ]] && pass || fail "no digest: exit $code, '$out'"
sed 's/^strategy: {kind: dfs}/strategy: {kind: naive}/' "$f" >"$work/naive.yaml"
out=$("$lockstep" check "$work/naive.yaml" --checkpoint "$work/naive.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ dfs,\ bounded,\ random\ or\ pct ]] && pass || fail "checkpoint of a naive search: exit $code, '$out'"

# --- A sampling search's checkpoint (random, pct: the counts below an execution index):
# random on two workers killed midway, resumed on one and on two; pct on one, resumed on two.
sed 's/^strategy: {kind: dfs}/strategy: {kind: random, seed: 5}/' "$f" >"$work/random.yaml"
sed 's/^strategy: {kind: dfs}/strategy: {kind: pct, depth: 3, seed: 5}/' "$f" >"$work/pct.yaml"
for kind in random pct; do
  s="$work/$kind.yaml"
  writers=$([[ $kind == random ]] && echo 2 || echo 1)
  "$lockstep" check "$s" --quiet --executions 1000000 --out-dir "$work/$kind" --json "$work/$kind-plain.json" \
    || fail "plain run of the $kind search"
  "$lockstep" check "$s" --quiet --executions 1000000 --workers "$writers" --out-dir "$work/$kind" \
    --checkpoint "$work/$kind.ckpt" --checkpoint-every 0.05 --json "$work/$kind-killed.json" &
  kill_midway "$!" "$work/$kind.ckpt" "$work/$kind-killed.json" "the $kind run"
  next=$(next_of "$work/$kind.ckpt")
  [[ $next -gt 0 && $next -lt 1000000 ]] && pass || fail "the $kind checkpoint holds no progress (next=$next)"
  for w in 1 2; do
    "$lockstep" check "$s" --quiet --executions 1000000 --workers $w --out-dir "$work/$kind" --resume "$work/$kind.ckpt" \
      --json "$work/$kind-resumed-$w.json"; code=$?
    [[ $code -eq 0 ]] && pass || fail "resume of the $kind checkpoint on $w workers: exit $code"
    if [[ "$(summary "$work/$kind-resumed-$w.json")" == "$(summary "$work/$kind-plain.json")" ]]; then pass
    else fail "$kind resumed at $next on $w: $(summary "$work/$kind-resumed-$w.json"), uninterrupted: $(summary "$work/$kind-plain.json")"; fi
  done
done
# A sampling checkpoint resumed with another seed would be another search: refused.
out=$("$lockstep" check "$work/random.yaml" --executions 1000000 --seed 6 --resume "$work/random.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ not\ this\ one ]] && pass || fail "a random checkpoint resumed with another seed: exit $code, '$out'"

# How many finished units a parallel search's checkpoint holds (0 if none can be read yet).
units_in() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['search']['units']))" "$1" 2>/dev/null || echo 0; }
# Kills process $1 with SIGKILL once checkpoint $2 holds a finished unit (or after 2 s).
kill_once_units() {
  for _ in $(seq 1 200); do
    [[ $(units_in "$2") -gt 0 ]] && break
    sleep 0.01
  done
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

# --- A parallel search's checkpoint (its finished units): two workers killed midway, resumed
# on two and on one, same counts as uninterrupted.
"$lockstep" check "$f" --quiet --workers 2 --out-dir "$work/ck2" --checkpoint "$work/w2.ckpt" --checkpoint-every 0.02 \
  --json "$work/killed2.json" &
kill_once_units "$!" "$work/w2.ckpt"
if [[ -s "$work/killed2.json" ]]; then fail "the two-worker run finished before it was killed: the test proved nothing"; fi
units=$(units_in "$work/w2.ckpt")
[[ $units -gt 0 ]] && pass || fail "the two-worker checkpoint holds no finished unit"
for w in 2 1; do
  "$lockstep" check "$f" --quiet --workers $w --out-dir "$work/ck2" --resume "$work/w2.ckpt" --json "$work/resumed2-$w.json"; code=$?
  [[ $code -eq 0 ]] && pass || fail "resume of a two-worker checkpoint on $w: exit $code"
  if [[ "$(summary "$work/resumed2-$w.json")" == "$(summary "$work/plain.json")" ]]; then pass
  else fail "two-worker checkpoint of $units units resumed on $w: $(summary "$work/resumed2-$w.json"), uninterrupted: $(summary "$work/plain.json")"; fi
done
# bounded: its checkpoint holds units on one worker too; killed midway, resumed on two.
b=scenarios/fileio/data-range-locks-disjoint-writers.yaml
"$lockstep" check "$b" --quiet --out-dir "$work/bp" --json "$work/bplain.json" || fail "plain run of $b"
"$lockstep" check "$b" --quiet --out-dir "$work/bk" --checkpoint "$work/b.ckpt" --checkpoint-every 0.02 --json "$work/bk.json" &
kill_once_units "$!" "$work/b.ckpt"
if [[ -s "$work/bk.json" ]]; then fail "the bounded run finished before it was killed: the test proved nothing"; fi
"$lockstep" check "$b" --quiet --workers 2 --out-dir "$work/bk" --resume "$work/b.ckpt" --json "$work/bres.json"; code=$?
[[ $code -eq 0 ]] && pass || fail "resume of a bounded checkpoint: exit $code"
if [[ "$(summary "$work/bres.json")" == "$(summary "$work/bplain.json")" ]]; then pass
else fail "bounded resumed: $(summary "$work/bres.json"), uninterrupted: $(summary "$work/bplain.json")"; fi

# --- A sweep's checkpoint (`run --checkpoint`): the finished rows. Killed midway, resumed:
# the CSV and JSON of an uninterrupted run (but for host times), the kept rows not run again.
cat >"$work/slow-sweep.yaml" <<'YAML'
name: slow sweep
machine: {preset: barcelona-4s}
design: {futex: linux-3.14}
scheduler: {idle: hlt}
workload: {kind: ring, threads: 4, laps: 2000}
sweep:
  scheduler.idle: [hlt, mwait, adaptive]
  workload.cpu_stride: [1, 2]
strategy: {kind: timed, seed: 1}
expect: pass
YAML
# The rows and their figures, host times left out.
sweep_rows() {
  python3 -c "
import json, sys
host = ('elapsed_s', 'sim_ops_per_host_s')
for r in json.load(open(sys.argv[1]))['rows']:
    print(sorted((k, str(v)) for k, v in r.items() if k not in host))
" "$1"
}
rows_in() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rows']))" "$1" 2>/dev/null || echo 0; }
"$lockstep" run "$work/slow-sweep.yaml" --quiet --out-dir "$work/sw" --json "$work/sw-plain.json" || fail "plain sweep"
"$lockstep" run "$work/slow-sweep.yaml" --quiet --out-dir "$work/sw" --json "$work/sw-killed.json" --checkpoint "$work/sw.ckpt" &
pid=$!
for _ in $(seq 1 300); do [[ $(rows_in "$work/sw.ckpt") -gt 0 ]] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
kept=$(rows_in "$work/sw.ckpt")
[[ $kept -gt 0 && $kept -lt 6 && ! -s "$work/sw-killed.json" ]] && pass || fail "the sweep's checkpoint holds $kept of 6 rows at the kill"
"$lockstep" run "$work/slow-sweep.yaml" --quiet --out-dir "$work/sw" --json "$work/sw-resumed.json" --resume "$work/sw.ckpt"; code=$?
[[ $code -eq 0 ]] && pass || fail "sweep resume: exit $code"
[[ "$(sweep_rows "$work/sw-resumed.json")" == "$(sweep_rows "$work/sw-plain.json")" ]] && pass \
  || fail "a sweep resumed with $kept rows kept differs from an uninterrupted one"
out=$("$lockstep" run "$work/slow-sweep.yaml" --quiet --out-dir "$work/sw" --seed 2 --resume "$work/sw.ckpt" 2>&1); code=$?
[[ $code -eq 2 && $out =~ other\ options ]] && pass || fail "a sweep checkpoint resumed with another seed: exit $code, '$out'"

# --- MPI: 1, 2 and 4 ranks on loopback give what one process gives.
if [[ $have_mpi == 1 ]]; then
  # Open MPI refuses root without these; set for this test only.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  for f in scenarios/futex/wake-fastpath-correct.yaml scenarios/futex/lost-wakeup-missing-barrier.yaml \
    scenarios/basics/counter-bounded.yaml scenarios/basics/racy-counter-pct.yaml scenarios/basics/counter-program-lock.yaml; do
    b=$(basename "$f" .yaml)
    "$lockstep" check "$f" --quiet --out-dir "$work/p-$b" --json "$work/p-$b.json"
    for np in 1 2 4; do
      timeout 300 mpirun -np $np "$lockstep" check "$f" --quiet --out-dir "$work/m$np-$b" --json "$work/m$np-$b.json"; code=$?
      [[ $code -eq 0 ]] && pass || fail "mpirun -np $np $f: exit $code"
      if [[ "$(summary "$work/m$np-$b.json")" == "$(summary "$work/p-$b.json")" ]]; then pass
      else fail "mpirun -np $np $f: $(summary "$work/m$np-$b.json") against one process: $(summary "$work/p-$b.json")"; fi
      for s in "$work/p-$b"/*.schedule; do
        [[ -e $s ]] || continue
        cmp -s "$s" "$work/m$np-$b/$(basename "$s")" && pass || fail "mpirun -np $np $f: the schedule file differs"
      done
    done
    # Work went to the other ranks (the JSON says how many units). Whether a small search
    # hands any out depends on timing (rank 0 may finish first on a loaded machine), so the
    # check is over all these searches on 2 and 4 ranks together.
    for np in 2 4; do
      n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(r.get('remote_units',0) for r in d.get('rows',[d])))" "$work/m$np-$b.json")
      remote_units=$((${remote_units:-0} + n))
    done
  done
  [[ ${remote_units:-0} -gt 0 ]] && pass || fail "mpirun -np 2 and 4: no unit of any search went to another rank"
  # Sweeps: `lockstep run` hands whole rows to the ranks; the CSV, the JSON (but for host
  # times) and the saved traces are one process's.
  strip_host_times() {
    python3 -c "
import csv, json, sys
host = ('elapsed_s', 'sim_ops_per_host_s', 'executions_per_s')
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k not in host}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))
for row in csv.DictReader(open(sys.argv[2])):
    print({k: v for k, v in row.items() if k not in host})
" "$1" "$2"
  }
  for f in scenarios/futex/wake-batches.yaml scenarios/basics/counter-under-spinlock.yaml; do
    b=$(basename "$f" .yaml)
    "$lockstep" run "$f" --quiet --save-traces --out-dir "$work/sp-$b" --json "$work/sp-$b.json" --csv "$work/sp-$b.csv"
    for np in 1 2 4; do
      timeout 300 mpirun -np $np "$lockstep" run "$f" --quiet --save-traces --out-dir "$work/sm$np-$b" \
        --json "$work/sm$np-$b.json" --csv "$work/sm$np-$b.csv"; code=$?
      [[ $code -eq 0 ]] && pass || fail "mpirun -np $np lockstep run $f: exit $code"
      if [[ "$(strip_host_times "$work/sm$np-$b.json" "$work/sm$np-$b.csv" | sed "s#$work/sm$np-#$work/sp-#g")" == \
            "$(strip_host_times "$work/sp-$b.json" "$work/sp-$b.csv")" ]]; then pass
      else fail "mpirun -np $np lockstep run $f: the JSON or CSV differs from one process's"; fi
      diff -r "$work/sp-$b" "$work/sm$np-$b" >/dev/null && pass || fail "mpirun -np $np lockstep run $f: the saved traces differ"
    done
  done

  # A sweep's checkpoint resumes under MPI too: the rows left go to the ranks.
  timeout 300 mpirun -np 2 "$lockstep" run "$work/slow-sweep.yaml" --quiet --out-dir "$work/sw" \
    --json "$work/sw-mpi-resumed.json" --resume "$work/sw.ckpt"; code=$?
  [[ $code -eq 0 ]] && pass || fail "mpirun -np 2 sweep resume: exit $code"
  [[ "$(sweep_rows "$work/sw-mpi-resumed.json")" == "$(sweep_rows "$work/sw-plain.json")" ]] && pass \
    || fail "a sweep resumed on two ranks differs from an uninterrupted one"

  # A checkpointed search: rank 1's units report their progress to rank 0 (what a checkpoint
  # holds of them), over MPI, and the counts are a plain run's.
  f=scenarios/bench/mc-four-threads.yaml
  timeout 300 mpirun -np 2 "$lockstep" check "$f" --quiet --out-dir "$work/reports" --checkpoint "$work/reports.ckpt" \
    --checkpoint-every 0.01 --json "$work/reports.json"; code=$?
  [[ $code -eq 0 ]] && pass || fail "mpirun -np 2 checkpointed: exit $code"
  [[ "$(summary "$work/reports.json")" == "$(summary "$work/plain.json")" ]] && pass \
    || fail "mpirun -np 2 checkpointed: $(summary "$work/reports.json"), one process: $(summary "$work/plain.json")"
  reports=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('remote_progress_reports', 0))" "$work/reports.json")
  [[ $reports -gt 0 ]] && pass || fail "mpirun -np 2 checkpointed every 0.01 s: rank 1 reported no progress"

  # A rank that dies (SIGKILL, as the OOM killer would): the run fails, the launcher names the
  # rank, and rank 0 says how to go on.
  # The search keeps a checkpoint; rank 0's advice resumes from it, to the uninterrupted counts.
  f=scenarios/bench/mc-four-threads.yaml
  mpirun -np 2 bash -c 'echo $$ >"$0/rank$OMPI_COMM_WORLD_RANK.pid"; exec "$@"' "$work" \
    "$lockstep" check "$f" --out-dir "$work/dead" --checkpoint "$work/dead.ckpt" --checkpoint-every 0.05 \
    >"$work/dead.txt" 2>&1 &
  job=$!
  for _ in $(seq 1 300); do [[ -s "$work/rank1.pid" ]] && break; sleep 0.01; done
  sleep 0.5
  kill -9 "$(cat "$work/rank1.pid")"
  wait "$job"; code=$?
  out=$(cat "$work/dead.txt")
  [[ $code -ne 0 && $out =~ process\ rank\ 1 && $out =~ rank\ 0\ was\ stopped && $out =~ To\ go\ on && $out =~ --resume\ $work/dead.ckpt ]] && pass \
    || fail "a rank killed midway: exit $code, '$out'"
  if [[ -s "$work/dead.ckpt" ]]; then
    timeout 300 mpirun -np 2 "$lockstep" check "$f" --quiet --out-dir "$work/dead" --resume "$work/dead.ckpt" \
      --json "$work/dead-resumed.json"; code=$?
    [[ $code -eq 0 ]] && pass || fail "mpirun -np 2 --resume after a rank died: exit $code"
    if [[ "$(summary "$work/dead-resumed.json")" == "$(summary "$work/plain.json")" ]]; then pass
    else fail "resumed after a rank died: $(summary "$work/dead-resumed.json"), uninterrupted: $(summary "$work/plain.json")"; fi
  else
    fail "the killed MPI search wrote no checkpoint in 0.5 s"
  fi

  # A counterexample written under MPI replays with a plain lockstep.
  out=$("$lockstep" replay "$work/m4-lost-wakeup-missing-barrier/lost-wakeup-missing-barrier.schedule" 2>&1); code=$?
  [[ $code -eq 0 ]] && pass || fail "replay of an MPI run's schedule: exit $code, '$out'"
fi

echo "$passes passed, $failures failed"
[[ $failures -eq 0 ]]
