#!/usr/bin/env bash
# make demo: checks every scenario under scenarios/ and says where the outputs went.
set -uo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find scenarios -name '*.yaml' | sort)
rm -rf out
build/bin/lockstep check "${files[@]}" --out-dir out --save-traces --json out/results.json --junit out/junit.xml
status=$?
cat <<TXT

Outputs are in out/:
  out/results.json      one result object per scenario (docs/results.md)
  out/junit.xml         the same as a JUnit report for CI systems
  out/*.trace.jsonl     traces (docs/traces.md); out/*.chrome.json opens in Perfetto or chrome://tracing
  out/*.schedule        counterexamples; replay one with: build/bin/lockstep replay out/<name>.schedule
  out/*.csv             one row per combination of a swept scenario
TXT
exit $status
