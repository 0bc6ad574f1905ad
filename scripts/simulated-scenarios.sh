#!/usr/bin/env bash
# Prints every bundled simulated scenario under scenarios/, sorted, one per line: neither
# native (`platform: native`) nor a long-running sweep (first line `# lockstep: long-running`,
# minutes each in an unoptimised build) nor a benchmark's input (`# lockstep: benchmark`;
# bench/ runs those). The set the CI stages compare
# across builds (scripts/check-build-independence.sh) and across rank counts
# (scripts/ci-rank-independence.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
while IFS= read -r f; do
  grep -q '^platform: native' "$f" && continue
  head -1 "$f" | grep -q '^# lockstep: \(long-running\|benchmark\)' && continue
  echo "$f"
done < <(find scenarios -name '*.yaml' | sort)
