// `lockstep native probe futex`: what the host's kernel charges for the operations the
// simulator's OS costs stand for (sim/exec/cost_model.hpp FlatCosts; docs/machines.md,
// "Native probes", says how each maps):
//  (a) FUTEX_WAIT_PRIVATE on a word that does not hold the expected value: the kernel
//      returns EAGAIN after hashing the address, locking the bucket and reading the word, so
//      this is a system call's round trip with little work inside;
//  (b) wake to running: threads on two CPUs; once the kernel shows the sleeper asleep in
//      FUTEX_WAIT and its CPU has had time to go idle, the waker stores and FUTEX_WAKEs it;
//      one way, from the waker's store to the sleeper's wait returning (CLOCK_MONOTONIC,
//      one clock for every CPU). The waker's FUTEX_WAKE call is timed on its own too;
//  (c) context switch: the same ping-pong with both threads on one CPU, where every handoff
//      is a switch; a switch is half a round trip (including a FUTEX_WAKE and a FUTEX_WAIT);
//  (d) (b) with std::atomic<uint32_t>::wait / notify_one (libstdc++ spins a little before
//      it sleeps in a futex; the waker waits until it has).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/latency_summary.hpp"
#include "native/probes/clock.hpp"
#include "native/probes/limits.hpp"

namespace lockstep::native::probes {

struct FutexProbeOptions {
  ProbeLimits limits;
  Clock::Source clock = Clock::Source::automatic;
};

struct FutexFigure {
  bool measured = false;
  measure::LatencySummary latency;
  // (c): handoffs where the partner was not asleep yet (the FUTEX_WAKE woke nobody), so no
  // sleep and wakeup happened; the figure is good while this is small. (b), (d): rounds
  // left out of the figure because the partner was not asleep when woken.
  std::uint64_t not_asleep = 0;
  std::string note;  // why it was not measured, or what to mind
};

// The OS costs of the simulator's machines (FlatCosts), derived from the figures. Only the
// sum of a system call's entry and exit is measured; how it splits is a [guess].
struct OsCostEstimate {
  double syscall_entry_ns = 0;  // eagain / 2 [guess: an even split]
  double syscall_exit_ns = 0;   // eagain / 2 [guess: an even split]
  double unpark_ns = 0;         // wake_call - eagain: the waker's call less a call's fixed cost
  // context_switch - 2 x eagain: a handoff less its two futex calls (FUTEX_WAKE and
  // FUTEX_WAIT), each taken as a bare system call [guess: waking a thread of the same CPU
  // sends no IPI, so the call is close to the EAGAIN path; (b)'s wake_call is not, it pays
  // for the IPI]
  double context_switch_ns = 0;
  double wake_ns = 0;              // wake_to_running - wake_call - context_switch_ns: the wakeup's own latency
  std::vector<std::string> notes;  // terms clamped at 0, figures missing
};

struct FutexProbeResult {
  ClockInfo clock;
  double clock_overhead_ns = 0;  // an empty interval, subtracted from each (a) and wake call sample
  int cpu_a = 0;                 // the CPUs of (b) and (d); (c) runs both threads on cpu_a
  int cpu_b = 0;
  FutexFigure syscall_eagain;   // (a), one sample per call
  FutexFigure wake_call;        // (b)'s FUTEX_WAKE of a sleeping thread, as its caller sees it
  FutexFigure wake_to_running;  // (b), one sample per wakeup, one way
  FutexFigure context_switch;   // (c), one sample per round trip, / 2
  FutexFigure atomic_wait;      // (d), one sample per wakeup, one way
  OsCostEstimate estimate;
  std::vector<std::string> notes;
  double seconds = 0;
  double elapsed_s = 0;
  bool interrupted = false;
};

// The budget is shared evenly by (a) to (d).
FutexProbeResult futex_probe(const FutexProbeOptions& options);

// The formulas of OsCostEstimate over measured medians.
OsCostEstimate estimate_os_costs(const FutexProbeResult& result);

}  // namespace lockstep::native::probes
