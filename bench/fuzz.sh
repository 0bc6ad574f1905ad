#!/usr/bin/env bash
# Fuzzes the readers of untrusted bytes (docs/fuzzing.md): builds the libFuzzer targets of
# fuzz/ with clang, ASan and UBSan (the `fuzz` preset, build-fuzz/), then runs each for the
# given time, one process each (cores are scarce), seeded with tests/corpus/fuzz/TARGET and
# the regression corpus. New inputs go to out/fuzz/corpus/TARGET, findings (crash-*, leak-*,
# timeout-*, oom-*) to out/fuzz/findings/TARGET/, logs to out/fuzz/TARGET.log.
# Usage: bench/fuzz.sh [SECONDS_EACH [TARGET...]]   (default 3600 s; scenario schedule trace)
# A finding stops that target's run (libFuzzer's default) and makes the script exit 1; to
# keep a finding, fix it and add the input to tests/corpus/fuzz/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(scenario schedule trace)
jobs=${FUZZ_BUILD_JOBS:-2}

cmake --preset fuzz >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]/#/lockstep_fuzz_}" >/dev/null

declare -A extra=([scenario]="tests/corpus/scenarios scenarios" [schedule]="tests/corpus/schedules"
                  [trace]="tests/corpus/traces")
status=0
for t in "${targets[@]}"; do
  corpus=out/fuzz/corpus/$t
  findings=out/fuzz/findings/$t
  log=out/fuzz/$t.log
  mkdir -p "$corpus" "$findings"
  stamp=out/fuzz/.start-$t
  touch "$stamp"
  start=$SECONDS
  # libFuzzer writes new inputs into the first directory only; the seeds are read, not changed.
  # shellcheck disable=SC2086
  set +e
  build-fuzz/bin/lockstep_fuzz_"$t" "$corpus" "tests/corpus/fuzz/$t" ${extra[$t]} \
    -dict="fuzz/$t.dict" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 -max_len=16384 \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  took=$((SECONDS - start))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -oE '(cov|ft): [0-9]+' "$log" | tail -2 | tr '\n' ' ' || true)
  found=$(find "$findings" -type f -newer "$stamp" | sort)  # this run's findings only
  echo "$t: ${execs} inputs in ${took} s (${speed}/s), ${cov}corpus $(find "$corpus" -type f | wc -l) files, exit $rc"
  if [ -n "$found" ] || [ "$rc" -ne 0 ]; then
    status=1
    echo "  findings (see $log):"
    # shellcheck disable=SC2001
    echo "$found" | sed 's/^/    /'
    grep -m3 -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|runtime error' "$log" | sed 's/^/    /' || true
  fi
done
exit $status
