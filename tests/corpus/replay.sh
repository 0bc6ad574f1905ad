#!/usr/bin/env bash
# Replays the corpus of inputs that once crashed or hung lockstep (inputs that
# cannot hurt): every scenario and schedule must be refused with exit 2 and a message,
# every trace opened (exit 0) or refused (exit 2), all within seconds.
# Usage: replay.sh LOCKSTEP SOURCE_DIR [LOCKSTEP_VIEW]  (the traces need the viewer)
set -uo pipefail
lockstep=$1
src=$2
view=${3:-}
cd "$src" || exit 1
failed=0
expect_2() {  # what, command...
  local what=$1
  shift
  local out rc
  out=$(timeout 60 "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne 2 ] || [ -z "$out" ]; then
    echo "FAIL $what: exit $rc (want 2 with a message): $out"
    failed=1
  else
    echo "ok   $what: ${out%%$'\n'*}"
  fi
}
if [ -z "$view" ]; then
for f in tests/corpus/scenarios/*.yaml; do expect_2 "$f" "$lockstep" check -q --out-dir "${TMPDIR:-/tmp}" "$f"; done
for f in tests/corpus/schedules/*.schedule; do expect_2 "$f" "$lockstep" replay -q --out-dir "${TMPDIR:-/tmp}" "$f"; done
# A search its cap stopped before the violation: a mismatch (exit 1), said to be capped, not
# an error about the pass's trace (which once re-ran an execution the search never saw).
out=$("$lockstep" check --executions 1 --out-dir "${TMPDIR:-/tmp}" scenarios/fileio/offset-none-lost-write.yaml 2>&1)
rc=$?
if [ "$rc" -ne 1 ] || [[ "$out" != *"within 1 executions, not exhaustive"* ]]; then
  echo "FAIL --executions 1: exit $rc: $out"
  failed=1
else
  echo "ok   --executions 1 on a violating scenario: ${out%%$'\n'*}"
fi
# The documented worker range: every count up to 256 runs (a guard page per stack used, not
# per stack reserved, keeps the mappings under the kernel's limit).
for w in 32 256; do
  out=$("$lockstep" check --workers "$w" -q --out-dir "${TMPDIR:-/tmp}" scenarios/litmus/sb-tso.yaml 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL --workers $w: exit $rc: $out"
    failed=1
  else
    echo "ok   --workers $w"
  fi
done
else
  for f in tests/corpus/traces/*.jsonl; do
    for v in stats compare; do
      args=("$f")
      [ "$v" = compare ] && args=("$f" "$f")
      out=$(QT_QPA_PLATFORM=offscreen timeout 60 "$view" --screenshot "${TMPDIR:-/tmp}/corpus.png" --view "$v" "${args[@]}" 2>&1)
      rc=$?
      if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
        echo "FAIL $f ($v): exit $rc (want 0 or 2): $out"
        failed=1
      else
        echo "ok   $f ($v): exit $rc"
      fi
    done
  done
fi
exit $failed
