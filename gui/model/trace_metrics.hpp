// Two traces of one scenario figure by figure: typically a native run and a
// simulated one, side by side in the compare view with A, B and B's difference from A in
// percent. Rates (per second of the trace's own duration) are what a native run of 200 ms and
// a simulated one of 20 us can be compared by; counts are shown too. A figure a trace has
// nothing to measure by (no lock events, no protocol steps) is absent on that side, never 0.
// A native trace that recorded one in `sample` lock holds and operations (docs/traces.md,
// "Native traces") counts each recorded one `sample` times: its counts are estimates, its
// wait and hold times a sample.
// No Qt.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gui/model/statistics.hpp"
#include "gui/model/trace.hpp"

namespace lockstep::view {

// A pair of figures: [0] from trace A, [1] from trace B.
template <typename T>
using Pair = std::array<T, 2>;

struct MetricRow {
  std::string name;  // "lock acquisitions per second", "t0: futex_wait"
  std::string unit;  // "ns", "/s", or "" for a count
  Pair<std::optional<double>> value;
  std::optional<double> difference_pct;  // (B - A) / A x 100, when both are there and A is not 0
};

// (b - a) / a x 100; none when a is 0.
std::optional<double> percent_difference(double a, double b);

// The rows, in this order: duration; events and events per second; lock acquisitions (and
// per second), wait and hold mean and p99; futex queue enqueues (waits that slept) and
// dequeues (waiters taken off to be woken or moved), and per second; wakeups (unparks that
// woke a parked thread), per second, and their latency to the target running again (mean);
// then per thread: lock acquisitions and each outermost protocol step (futex_wait, ...), as a
// count and per second.
std::vector<MetricRow> metric_differences(const Trace& a, const Trace& b);
// The same with each trace's whole-trace statistics already computed (compare_traces has them).
std::vector<MetricRow> metric_differences(const Pair<const Trace*>& traces, const Pair<const Statistics*>& stats);

}  // namespace lockstep::view
