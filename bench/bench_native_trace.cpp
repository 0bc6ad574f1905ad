// What a native trace costs (native/native_trace.hpp): per note, beside the clocks it could
// read (steady_clock through the vDSO, the time stamp counter) and sched_getcpu; and futex-hash
// traced against untraced (BM_FutexHashTraceCost). Run by bench/native-trace.sh; figures in
// bench/README.md, "Native traces".
#include <benchmark/benchmark.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/futex/futex_table.hpp"
#include "driver/workload_bindings.hpp"
#include "io/files.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "report/row_report.hpp"
#include "spec/scenario.hpp"

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
    NativePlatform::note_lock(&word, LockNote::acquire, false, {});
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
      NativePlatform::note_lock(&word, LockNote::acquire, false, {});
      benchmark::ClobberMemory();
    }
  });
  runner.run();
}
BENCHMARK(BM_NoteLockTraced)->Iterations(1 << 22);

// One thread's FUTEX_WAIT that returns EAGAIN on the baseline table (hash, bucket lock, value
// check, unlock): futex-hash's call, without its second thread and its clock reads. Argument:
// 0 untraced, 1 traced (two lock notes a call), 2 traced with the outermost steps.
void BM_FutexWaitEagain(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  std::optional<lockstep::native::TraceSession> session;
  if (mode > 0) session.emplace(lockstep::native::TraceOptions{std::size_t{1} << 26, mode == 2, 1});
  lockstep::native::NativeRunner runner;
  runner.spawn("bench", 0, [&state] {
    lockstep::futex::FutexTable<NativePlatform> table(lockstep::futex::FutexConfig{}, lockstep::futex::FutexMachine{});
    std::vector<std::atomic<std::uint32_t>> words(1024);
    std::size_t i = 0;
    for (auto _ : state) {
      benchmark::DoNotOptimize(table.wait(words[i], 1234));
      i = i + 1 == words.size() ? 0 : i + 1;
    }
  });
  runner.run();
  state.SetLabel(mode == 0 ? "untraced" : mode == 1 ? "traced" : "traced with steps");
}
BENCHMARK(BM_FutexWaitEagain)->DenseRange(0, 2)->Iterations(1 << 21);

// futex-hash on this host, untraced against traced, interleaved within one process: each
// round runs a row of scenarios/futex/native-hash.yaml untraced, traced and traced with the
// outermost protocol steps, in an order that rotates from round to round, so the VM's drift
// (bench/README.md: up to 1.8x over minutes) hits every side alike, and each traced run's
// ratio is taken to the untraced run of its own round. A traced run here is what `lockstep
// native --trace` records (a TraceSession alive around the row's native run); writing the
// file, after the window, is left out. The window is LOCKSTEP_TRACE_COST_RUNTIME_US (default
// 20000 us instead of the scenario's 200 ms), so a buffer of 2 Mi events a thread holds it
// all: the cost of recording every event, not of a buffer that filled and stopped. Counters:
// the medians of ops/s (M) per side, the median and lowest ratio to untraced per traced side,
// and the events dropped (must be 0). Arguments: the sweep row (0 baseline ... 6
// std-atomic-wait) and the traced sides' sampling (TraceOptions::sample: one lock hold or
// operation in that many recorded).
const lockstep::scenario::ScenarioFile& hash_sweep() {
  static const lockstep::scenario::ScenarioFile file = [] {
    const char* runtime = std::getenv("LOCKSTEP_TRACE_COST_RUNTIME_US");
    std::string text = lockstep::io::read_file(LOCKSTEP_SOURCE_DIR "/scenarios/futex/native-hash.yaml");
    const std::string from = "runtime_us: 200000";
    text.replace(text.find(from), from.size(), std::string("runtime_us: ") + (runtime ? runtime : "20000"));
    const std::string path = std::filesystem::temp_directory_path() / "lockstep-trace-cost.yaml";
    lockstep::io::write_file_atomically(path, text);
    return lockstep::scenario::load_scenario_file(path);
  }();
  return file;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

void BM_FutexHashTraceCost(benchmark::State& state) {
  constexpr int kRounds = 21;
  constexpr std::size_t kEventsPerThread = std::size_t{1} << 21;
  const lockstep::scenario::Scenario& s = hash_sweep().rows.at(static_cast<std::size_t>(state.range(0)));
  const auto sample = static_cast<std::uint32_t>(state.range(1));
  std::array<std::vector<double>, 3> ops;  // untraced, traced, traced with steps
  std::uint64_t dropped = 0;
  for (auto _ : state) {
    for (int r = 0; r < kRounds; ++r)
      for (int k = 0; k < 3; ++k) {
        const int side = (r + k) % 3;
        std::optional<lockstep::native::TraceSession> session;
        if (side > 0) session.emplace(lockstep::native::TraceOptions{kEventsPerThread, side == 2, sample});
        const lockstep::report::RowReport row = lockstep::driver::binding_of(s.workload).native(s);
        if (session)
          for (const auto& t : session->threads()) dropped += t->dropped;
        ops[static_cast<std::size_t>(side)].push_back(row.workload.value("ops_per_s"));
      }
  }
  state.SetLabel(s.params.at(0).second);
  state.counters["untraced_M"] = median(ops[0]) / 1e6;
  for (std::size_t side = 1; side < 3; ++side) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < ops[0].size(); ++r) ratios.push_back(ops[side][r] / ops[0][r]);
    const std::string name = side == 1 ? "traced" : "steps";
    state.counters[name + "_M"] = median(ops[side]) / 1e6;
    state.counters[name + "_ratio"] = median(ratios);
    state.counters[name + "_min"] = *std::min_element(ratios.begin(), ratios.end());
  }
  state.counters["dropped"] = static_cast<double>(dropped);
}
BENCHMARK(BM_FutexHashTraceCost)
    ->ArgsProduct({benchmark::CreateDenseRange(0, 6, 1), {1, 4, 8}})
    ->ArgNames({"row", "sample"})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
