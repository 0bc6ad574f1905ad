// How each workload kind runs, the driver's half of a workload's row (the scenario's half,
// its keys, loader and properties, is spec/workload_kinds.hpp): a fresh simulated
// workload per execution, and one execution on real threads. The runners read this table;
// nothing else switches on the kind.
#pragma once

#include <deque>
#include <memory>

#include "report/row_report.hpp"
#include "sim/exec/engine.hpp"
#include "spec/scenario.hpp"
#include "spec/workload_kinds.hpp"

namespace lockstep::driver {

struct WorkloadBinding {
  const scenario::WorkloadKindInfo* kind = nullptr;  // the scenario's half of the row
  // One simulated execution's workload (null: the runner has its own loop, c2c's pairs).
  std::unique_ptr<sim::SimWorkload> (*simulate)(const scenario::WorkloadSpec& spec) = nullptr;
  // Refuses, with a message, a row that cannot run natively (null: it always can).
  void (*check_native)(const scenario::Scenario& s) = nullptr;
  // One native execution (null: simulator only).
  report::RowReport (*native)(const scenario::Scenario& s) = nullptr;
};

// Every kind's binding, in the order of scenario::workload_kind_table().
const std::deque<WorkloadBinding>& workload_bindings();
// The binding of a loaded scenario's kind. Throws std::logic_error for a kind registered
// without one (scenario::register_workload_kind called directly, not register_workload).
const WorkloadBinding& binding_of(const scenario::WorkloadSpec& workload);

// Adds a workload kind of a program's own (examples/backoff-lock/): scenarios loaded after
// this may name it, and the runners run it like a bundled one (driver/workload_rows.hpp makes
// its simulate and native entries; `binding.kind` is set here). Call it before loading
// scenarios, from one thread. Throws std::invalid_argument as
// scenario::register_workload_kind does, and when the binding has no simulate entry.
void register_workload(scenario::WorkloadKindInfo kind, WorkloadBinding binding);

}  // namespace lockstep::driver
