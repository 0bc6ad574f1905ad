// Progress of a long row, for a person watching a terminal: how many executions have run
// (and of how many, or up to which cap), or, for a timed run, how far its one execution has
// come in steps and virtual time. A meter thread samples counters the work publishes
// (atomics only: the searching threads never wait for it) and hands snapshots to the front
// end's reporter, which decides how to show them (cli/progress_line.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "sim/exec/engine.hpp"

namespace lockstep::driver {

struct ProgressSnapshot {
  std::string scenario;  // the scenario's name
  std::size_t row = 0;   // 0-based row of a sweep
  std::size_t rows = 1;
  std::string strategy;  // timed, dfs, bounded, pct, random, naive, replay
  std::string phase;     // empty while searching or running; "minimizing", "traced re-run"
  double elapsed_s = 0;
  // Searches: executions run so far (minimization's included), and either the number the
  // strategy will run (random, pct: an estimate of the time left exists) or its cap (dfs,
  // bounded, naive: it stops earlier when the space is exhausted).
  std::uint64_t executions = 0;
  std::uint64_t planned = 0;
  std::uint64_t cap = 0;
  // dfs: the executions the search will complete as estimated before it began (0: none),
  // the half-width of the estimate's 95% interval, and the seconds since the search began.
  double estimate = 0;
  double estimate_half_width = 0;
  double search_s = 0;
  // Timed runs: the execution's steps and virtual time so far.
  std::uint64_t steps = 0;
  std::uint64_t virtual_ns = 0;
};

// Called from the meter's thread, at most every kProgressPeriod after the first second, and
// once more with `final` when a row that was reported on ends.
using ProgressReporter = std::function<void(const ProgressSnapshot& snapshot, bool final)>;

class ProgressMeter {
 public:
  static constexpr std::chrono::milliseconds kProgressPeriod{250};
  static constexpr std::chrono::milliseconds kQuietFor{1000};  // short rows print nothing

  // `reporter` empty: no thread, nothing reported. `engine`: a timed run's engine.
  ProgressMeter(ProgressReporter reporter, ProgressSnapshot base, const sim::Engine* engine = nullptr);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // The counter that executors bump once per execution (SimExecutor).
  std::atomic<std::uint64_t>* executions() { return &executions_; }
  // What the row does now, after its search or run (a string literal: it is read by the
  // meter's thread).
  void set_phase(const char* phase) { phase_.store(phase, std::memory_order_relaxed); }
  // The search's estimated size (model/search_estimate.hpp), known before it begins: call
  // once, before the search, from the thread that runs it.
  void set_estimate(double executions, double half_width);
  // Ends the meter: the final report, if any was made, then no more.
  void stop();

 private:
  ProgressSnapshot sample() const;
  void loop();

  ProgressReporter reporter_;
  ProgressSnapshot base_;
  const sim::Engine* engine_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<std::uint64_t> executions_{0};
  std::atomic<const char*> phase_{""};
  std::atomic<bool> estimated_{false};
  double estimate_ = 0, estimate_half_width_ = 0;  // written before estimated_ is set
  std::chrono::steady_clock::time_point search_start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool reported_ = false;
  std::thread thread_;
};

}  // namespace lockstep::driver
