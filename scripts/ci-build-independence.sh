#!/usr/bin/env bash
# CI stage: results must not depend on the build (docs/architecture.md, "The seam"). Builds
# the lockstep executable in the `debug` preset (-O0: every frame laid out differently from
# release's) and compares every bundled simulated scenario's trace hash, verdict, counts and
# virtual time with the release build's (scripts/check-build-independence.sh). Another
# second build can be given: OTHER=build-clang/bin/lockstep (the `clang` preset).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
other=${OTHER:-build-debug/bin/lockstep}
start=$SECONDS
if [ -z "${OTHER:-}" ]; then
  cmake --preset debug >/dev/null
  cmake --build build-debug -j "$jobs" --target lockstep
fi
echo "build-independence: built in $((SECONDS - start)) s"
scripts/check-build-independence.sh build/bin/lockstep "$other"
