// OS and idle-loop costs for presets without measurements of their own.
#pragma once

#include <cstdint>

#include "sim/exec/cost_model.hpp"

namespace lockstep::sim::machine {

// The OS costs nehalem-2s guesses (presets.cpp), scaled by a newer preset's clock where they
// are CPU-bound work: the presets of presets_sosp13.cpp and presets_xeon_2s.cpp.
inline FlatCosts scaled_os_costs(double ghz) {
  const double scale = 2.66 / ghz;  // [derived] nehalem-2s's guesses are for 2.66 GHz
  const auto ns = [scale](double at_nehalem) { return static_cast<std::uint64_t>(at_nehalem * scale + 0.5); };
  FlatCosts os{
      .load_ns = 2,          // [derived] an L1 hit rounded up (the flat fallback only)
      .store_ns = 2,         // [derived] into the store buffer, as an L1 hit
      .rmw_ns = ns(8),       // [guess] as nehalem-2s, scaled (the flat fallback only)
      .plain_ns = 2,         // [derived] as load_ns
      .fence_ns = ns(12),    // [guess] mfence, as nehalem-2s, scaled
      .pause_ns = ns(4),     // [guess] pause, as nehalem-2s, scaled
      .wake_ns = ns(2000),   // [guess] IPI and wakeup of an idle CPU, as nehalem-2s
      .unpark_ns = ns(300),  // [guess] try_to_wake_up's cost to the waker
      .context_switch_ns = ns(1500),
      .time_slice_ns = 3'000'000,  // [guess] CFS's slice with a few runnable tasks (OS, not hardware)
      .work_ns = {ns(20), ns(50), ns(50), 1},
  };
  os.idle = IdleCosts{
      .ipi_send_ns = ns(600),
      .hlt_exit_ns = ns(4000),
      .mwait_exit_ns = ns(200),
      .spin_detect_ns = ns(60),
      .spin_iterations = 10000,  // FreeBSD sched_ule.c: sched_idlespins
      .spin_switches = 4,        // FreeBSD sched_ule.c of 2008: sched_idlespinthresh = 4
      .mwait_switches = 1,       // the same: cpu_idle(switchcnt > 1)
      .tick_ns = 1'000'000,      // [guess] hz = 1000
  };
  return os;
}

}  // namespace lockstep::sim::machine
