// ccbench on the simulated machine: put one cache line into a chosen coherence state and
// place with one or more CPUs (its holders), then time one operation on it from another
// CPU, the way ccbench measures a machine (the tests themselves are in
// core/workloads/ccbench_test.hpp, which the native probe shares). Every repetition takes a
// fresh line, so no earlier one's state is left in any cache; the holders and the measuring
// CPU hand over through a separate flag line.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/workloads/ccbench_test.hpp"
#include "sim/exec/engine.hpp"

namespace lockstep::sim::machine {

using lockstep::CcOp;
using lockstep::LineState;
using lockstep::name_of;
using lockstep::parse_cc_op;
using lockstep::parse_line_state;

struct CcbenchParams {
  LineState state = LineState::modified;
  CcOp op = CcOp::cas;
  std::vector<CpuId> holders{0};  // who puts the line in its state, in this order
  std::vector<CpuId> cpus;        // who time the operation, each in its own execution
  std::uint32_t repetitions = 100;
  std::optional<NodeId> home;  // the line's memory; default: the first holder's node
};

struct CcbenchRow {
  CpuId cpu = 0;  // the measuring CPU
  double mean_ns = 0;
  double median_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
};

struct CcbenchResult {
  std::vector<CcbenchRow> rows;  // one per measuring CPU, in params.cpus order
  std::uint64_t executions = 0;
  std::uint64_t memory_ops = 0;
};

// One timed execution per measuring CPU, `params.repetitions` fresh lines each;
// `first_trace` (may be null) records the first CPU's execution.
CcbenchResult run_ccbench(Engine& engine, const CcbenchParams& params, std::uint64_t seed,
                          TraceRecorder* first_trace = nullptr);

}  // namespace lockstep::sim::machine
