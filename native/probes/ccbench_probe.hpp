// ccbench natively: pinned threads put a fresh cache line into a chosen state (its holders),
// then another pinned CPU times one operation on it with the TSC, as ccbench does on a real
// machine (core/workloads/ccbench_test.hpp holds the tests, which the simulated ccbench
// shares; sim/machine/ccbench.hpp). Every repetition takes a line of its own, 8 KiB from the
// last, flushed to memory before the holders touch it; the holders and the measuring CPU hand
// over through a turn word on a line apart. The buffer is in transparent huge pages where the
// host allows, so the timed operation does not also pay a TLB miss.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/workloads/ccbench_test.hpp"
#include "measure/latency_summary.hpp"
#include "native/probes/clock.hpp"
#include "native/probes/limits.hpp"

namespace lockstep::native::probes {

// The simulated ccbench's spacing (sim/machine/ccbench.cpp): a line per 8 KiB, so no
// prefetcher that stays within a 4 KiB page brings the next repetition's line.
inline constexpr std::uint64_t kCcbenchLineSpacing = 8192;
inline constexpr std::uint32_t kMaxCcbenchRepetitions = 1u << 20;  // 8 GiB of spaced lines at most

struct CcbenchProbeOptions {
  ProbeLimits limits;  // only its stop flag, polled between measuring CPUs: the repetitions bound the probe
  LineState state = LineState::modified;
  CcOp op = CcOp::cas;
  std::vector<int> holders{0};  // who put the line in its state, in this order
  std::vector<int> cpus;        // who time the operation, one after the other
  std::uint32_t repetitions = 100;
  int node = -1;  // the lines' memory; -1: the first holder's node (or the measurer's, with none)
  Clock::Source clock = Clock::Source::automatic;
};

struct CcbenchProbeRow {
  int cpu = 0;
  measure::LatencySummary latency;  // over the repetitions, the readings' own cost taken off
  double min_ns = 0;
  double max_ns = 0;
};

struct CcbenchProbeResult {
  ClockInfo clock;
  double empty_interval_ns = 0;  // what a reading pair costs with nothing between (subtracted)
  int node = -1;
  std::vector<CcbenchProbeRow> rows;  // one per measuring CPU, in options.cpus order
  std::vector<std::string> notes;
  double elapsed_s = 0;
  bool interrupted = false;
};

// Throws std::invalid_argument for a test that cannot be set up (a state without its holders,
// a measuring CPU that is also a holder) and std::runtime_error when a CPU cannot be pinned.
CcbenchProbeResult ccbench_probe(const CcbenchProbeOptions& options);

}  // namespace lockstep::native::probes
