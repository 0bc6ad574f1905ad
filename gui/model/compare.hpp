// Two traces side by side: what differs in their totals (end time, steps, outcome, operation
// counts, time per thread and state, lock wait and hold), their figures in percent
// (trace_metrics.hpp), and where their executions first part ways. No Qt; the compare view paints it under the two
// aligned timelines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gui/model/statistics.hpp"
#include "gui/model/trace.hpp"
#include "gui/model/trace_metrics.hpp"

namespace lockstep::view {

// What makes two operations the same step of an execution: who did what where with which
// value. Time and latency are left out, so a timing difference alone is not a divergence.
struct StepKey {
  int thread = -1;
  std::string op;  // `rmw` for a read-modify-write, otherwise `op`
  std::optional<std::uint64_t> addr, val;
  bool operator==(const StepKey&) const = default;
};
StepKey step_key(const Operation& op);

// The first index into the traces' operation lists (Trace::ops, time order) at which the two
// differ; a trace that has ended there has no description.
struct Divergence {
  std::size_t index = 0;
  Pair<std::optional<std::string>> described;  // Trace::describe of each side's operation
};

struct ThreadComparison {
  int thread = 0;
  Pair<std::string> name;  // empty where that trace lacks the thread
  Pair<ThreadTimes> times;
};

struct Comparison {
  Pair<std::uint64_t> end_time_ns{};
  Pair<std::uint64_t> steps{};
  Pair<std::string> outcome;
  Pair<std::string> finding;  // "violation lost_wakeup", "witness x", or empty
  Pair<std::size_t> ops{};
  std::map<std::string, Pair<std::size_t>> op_counts;  // every kind either trace has
  std::vector<ThreadComparison> threads;               // by thread number, up to the larger count
  Pair<LockTimes> locks;
  std::optional<Divergence> divergence;  // none: the same sequence of steps
  std::vector<MetricRow> metrics;        // figure by figure, with B's difference from A in percent
};

Comparison compare_traces(const Trace& a, const Trace& b);

}  // namespace lockstep::view
