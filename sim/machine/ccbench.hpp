// ccbench on the simulated machine: put one cache line into a chosen coherence state and
// place with one or more CPUs (its holders), then time one operation on it from another
// CPU, the way ccbench measures a machine (T. David et al., SOSP 2013; github.com/trigonak/
// ccbench: STORE_ON_MODIFIED, LOAD_FROM_SHARED, CAS on modified lines, ...). Every repetition
// takes a fresh line, so no earlier one's state is left in any cache; the holders and the
// measuring CPU hand over through a separate flag line.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/exec/engine.hpp"

namespace lockstep::sim::machine {

// The line's state before the timed operation, as its holders leave it:
//   modified:  the first holder stores to it;
//   exclusive: the first holder loads it (no one else has it);
//   shared:    every holder loads it in turn (two at least; under MESIF the last one holds
//              it Forward);
//   owned:     the first holder stores, the others load (MOESI: the writer keeps it Owned);
//   invalid:   no one touches it: it is in memory only.
enum class LineState { modified, exclusive, shared, owned, invalid };
enum class CcOp { load, store, cas, fai, tas, swap };
std::string_view name_of(LineState s);
std::string_view name_of(CcOp op);
std::optional<LineState> parse_line_state(std::string_view s);
std::optional<CcOp> parse_cc_op(std::string_view s);

struct CcbenchParams {
  LineState state = LineState::modified;
  CcOp op = CcOp::cas;
  std::vector<CpuId> holders{0};   // who puts the line in its state, in this order
  std::vector<CpuId> cpus;         // who time the operation, each in its own execution
  std::uint32_t repetitions = 100;
  std::optional<NodeId> home;      // the line's memory; default: the first holder's node
};

struct CcbenchRow {
  CpuId cpu = 0;  // the measuring CPU
  double mean_ns = 0;
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
