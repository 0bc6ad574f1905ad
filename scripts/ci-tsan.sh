#!/usr/bin/env bash
# CI stage: ThreadSanitizer (the `tsan` preset, build-tsan/) over the tests that run real
# threads: the native platform's tests (futex backends, native runs, the watchdog, the
# futex mutexes and condvars, and the locks' native instantiations). The simulator runs
# its threads as fibers on one OS thread, which TSan has nothing to say about.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
start=$SECONDS
cmake --preset tsan >/dev/null
cmake --build build-tsan -j "$jobs" --target lockstep_tests
echo "tsan: built in $((SECONDS - start)) s"
start=$SECONDS
# The native tests by name (tests/test_native_*.cpp and the [native] / native-platform cases
# elsewhere; `ctest --test-dir build-tsan -N` lists every name).
native='native|NativePlatform|Native>'
ctest --test-dir build-tsan -j "$jobs" --output-on-failure -R "$native"
echo "tsan: tests ran in $((SECONDS - start)) s"
