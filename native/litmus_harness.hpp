// Runs a set of thread bodies many times, litmus7-style (herdtools' litmus7 runs a litmus
// test natively millions of times and counts its final states): one pinned thread per body,
// kept alive across runs, a sense-reversing spin barrier before and after each run, and a
// random start skew per thread per run from a seeded generator. What a run left behind is
// the caller's to read, in `after_run`, on the first thread, while no body runs
// (docs/model-checking.md, "Native litmus runs").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/platform.hpp"

namespace lockstep::native {

struct LitmusLimits {
  // Runs to do; 0: as many as `seconds` allows. Whichever limit comes first ends the runs.
  std::uint64_t max_runs = 0;
  double seconds = kDefaultSeconds;
  // The skew generator's seed: the same seed draws the same skews, so a run is repeatable as
  // far as the hardware allows.
  std::uint64_t seed = 1;
  // Each thread spins 0..max_skew pause instructions (uniformly) before its body, so the
  // threads' starts cross each other in both directions by up to that much.
  std::uint32_t max_skew = kDefaultMaxSkew;
  // A run not finished after this long is reported, its threads abandoned.
  double watchdog_s = kDefaultWatchdogSeconds;

  // [guess] a budget of a few seconds, as litmus7's default runs take.
  static constexpr double kDefaultSeconds = 2;
  // Measured: docs/model-checking.md, "Native litmus runs", has the SB rates that chose it.
  static constexpr std::uint32_t kDefaultMaxSkew = 4;
  // [guess] a litmus run takes microseconds; 5 s is far beyond any delay of a busy host's
  // scheduler, so a run that long is stuck (a deadlock, a lost wakeup, a lock left held).
  static constexpr double kDefaultWatchdogSeconds = 5;
};

struct LitmusThread {
  std::string name;
  CpuId cpu = 0;  // the scenario's CPU: pinned to allowed_cpus()[cpu % size] (runner.hpp)
  std::function<void()> body;
  // Run after the start barrier, before the skew (may be empty): what the thread does to set
  // up the caches for the run (driver/native_litmus.cpp preloads the variables).
  std::function<void()> prepare;
};

struct LitmusRunStats {
  std::uint64_t runs = 0;          // runs completed, each handed to after_run
  double elapsed_s = 0;            // from the first run's start to the last run's end
  bool interrupted = false;        // Ctrl-C (SIGINT, SIGTERM, SIGHUP) stopped the runs early
  std::vector<std::string> stuck;  // the threads that did not finish run `runs + 1` in time
  std::vector<CpuId> host_cpus;    // the host CPU each thread was pinned to
};

// Runs the threads' bodies together, over and over, until a limit, Ctrl-C or the watchdog
// ends it. `after_run` runs on the first thread after every thread finished a run and before
// any starts the next; it must leave the state the bodies expect (reset what they changed).
// Threads of a run the watchdog abandons are detached, stuck where they are, and keep what
// their bodies and `after_run` hold alive (capture it by shared_ptr).
LitmusRunStats run_litmus(std::vector<LitmusThread> threads, std::function<void()> after_run,
                          const LitmusLimits& limits);

}  // namespace lockstep::native
