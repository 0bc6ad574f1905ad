// Runs a workload's threads natively: one std::thread each, pinned, released together.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/platform.hpp"
#include "native/native_platform.hpp"

namespace lockstep::native {

// The CPUs this process may run on, in order; CPU i of a scenario maps to entry i % size.
std::vector<CpuId> allowed_cpus();

struct NativeRunResult {
  std::optional<NativeViolation> violation;
  double elapsed_s = 0;  // from the threads' release to the last one's end
};

class NativeRunner {
 public:
  void spawn(std::string name, CpuId cpu, std::function<void()> body);
  // Starts every spawned thread at once, joins them, and returns the first violation.
  NativeRunResult run();
  std::size_t threads() const { return specs_.size(); }
  // How long run() waits for its threads before it reports the stuck ones and exits 1.
  void set_watchdog(double seconds) { watchdog_s_ = seconds; }
  // What the watchdog's message names as the run (a scenario and its sweep row); empty: none.
  void set_label(std::string label) { label_ = std::move(label); }
  static constexpr double kDefaultWatchdogSeconds = 300;

 private:
  struct Spec {
    std::string name;
    CpuId cpu;
    std::function<void()> body;
  };
  std::vector<Spec> specs_;
  double watchdog_s_ = kDefaultWatchdogSeconds;
  std::string label_;
};

}  // namespace lockstep::native
