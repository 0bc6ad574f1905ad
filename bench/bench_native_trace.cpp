// What a native trace costs per note (native/native_trace.hpp), beside the clocks it could
// read: steady_clock (clock_gettime through the vDSO) and the time stamp counter. Run by
// bench/native-trace.sh before its end-to-end futex-hash runs; figures in bench/README.md,
// "Native traces".
#include <benchmark/benchmark.h>
#include <sched.h>

#include <chrono>
#include <cstdint>

#include "native/native_platform.hpp"
#include "native/runner.hpp"

namespace {

using lockstep::LockNote;
using lockstep::native::NativePlatform;

void BM_SteadyClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(std::chrono::steady_clock::now());
}
BENCHMARK(BM_SteadyClock);

// The clock the trace uses (rdtsc where the TSC is invariant, else steady_clock).
void BM_TraceClockTicks(benchmark::State& state) {
  state.SetLabel(lockstep::native::TraceClock::uses_tsc() ? "tsc" : "steady_clock");
  for (auto _ : state) benchmark::DoNotOptimize(lockstep::native::TraceClock::ticks());
}
BENCHMARK(BM_TraceClockTicks);

// The CPU a park or unpark event carries (glibc reads it from the rseq area).
void BM_SchedGetcpu(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sched_getcpu());
}
BENCHMARK(BM_SchedGetcpu);

// A lock note with no trace wanted: what every untraced native run pays per note.
void BM_NoteLockUntraced(benchmark::State& state) {
  int word = 0;
  for (auto _ : state) {
    NativePlatform::note_lock(&word, LockNote::acquire, false);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NoteLockUntraced);

// A lock note recorded: the clock and 32 bytes into the thread's buffer. The note runs on a
// runner thread (only those record); the buffer holds every iteration's event, so none is
// dropped and the cost is that of recording.
void BM_NoteLockTraced(benchmark::State& state) {
  const auto events = static_cast<std::size_t>(state.max_iterations);
  lockstep::native::TraceSession session({.events_per_thread = events, .steps = false});
  lockstep::native::NativeRunner runner;
  runner.spawn("bench", 0, [&state] {
    int word = 0;
    for (auto _ : state) {
      NativePlatform::note_lock(&word, LockNote::acquire, false);
      benchmark::ClobberMemory();
    }
  });
  runner.run();
}
BENCHMARK(BM_NoteLockTraced)->Iterations(1 << 22);

}  // namespace

BENCHMARK_MAIN();
