#!/usr/bin/env bash
# Simulated against measured (docs/compare.md): calibrates this host into a scratch machine
# file (the stored calibration is left alone), then compares every bundled comparison
# scenario and the native futex scenarios against it, 5 native runs each, and prints the
# tables. Usage: bench/compare.sh [REPETITIONS]. Run it on an idle machine: the native side
# is this host, and other work on it moves every native figure.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
lockstep=build/bin/lockstep
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$lockstep" calibrate --seconds 12 --no-store --out "$out/host.yaml"
for f in scenarios/compare/*.yaml scenarios/futex/native-hash.yaml scenarios/futex/native-pingpong.yaml; do
  echo
  "$lockstep" compare "$f" -n "$reps" --machine "$out/host.yaml" --json "$out/$(basename "$f" .yaml).json" || true
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
