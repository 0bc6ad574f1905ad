// The workloads a scenario can name, one row each (workload_registry.cpp): its `kind`, the
// YAML keys it takes, how it is loaded, how it runs on the simulator and natively, and the
// built-in properties it checks. The loader, the runners and `lockstep --help` read this
// table, so adding a workload is its file (core/workloads/) with its loader, and one row;
// nothing else switches on the kind.
#pragma once

#include <any>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/report.hpp"
#include "scenario/scenario.hpp"
#include "scenario/yaml_fields.hpp"
#include "sim/exec/engine.hpp"

namespace lockstep::scenario {

struct WorkloadKindInfo {
  std::string_view name;          // `workload: {kind: NAME}`; "program" for thread programs
  std::vector<std::string> keys;  // the keys of its map besides `kind`
  // Reads its parameters from the workload's map (null for thread programs, which are
  // read from `threads`). Errors name file, line and column (yaml::Source::fail).
  std::any (*load)(const yaml::Map& map, const MachineSpec& machine, const DesignSpec& design) = nullptr;
  // One simulated execution's workload (null: the runner has its own loop, c2c's pairs).
  std::unique_ptr<sim::SimWorkload> (*simulate)(const WorkloadSpec& spec) = nullptr;
  // Refuses, with a message, a row that cannot run natively (null: it always can).
  void (*check_native)(const Scenario& s) = nullptr;
  // One native execution (null: simulator only).
  RowReport (*native)(const Scenario& s) = nullptr;
  // The built-in properties it reports; all are checked when a scenario lists none.
  std::vector<std::string> properties;
};

// Every row, in the order `lockstep --help` lists them: the bundled ones (thread programs
// last of them), then those registered. A deque: a row's address stays valid while others
// are added, as loaded scenarios point at their rows.
const std::deque<WorkloadKindInfo>& workload_registry();
// Adds a workload kind of a program's own (examples/backoff-lock/): scenarios loaded after
// this may name it, and the runners run it like a bundled one (scenario/workload_rows.hpp
// makes its simulate and native entries). Call it before loading scenarios, from one thread.
// Throws std::invalid_argument when the name is taken, a row has no load or simulate, or a
// property it lists is not declared in core/properties.hpp.
void register_workload(WorkloadKindInfo row);
// The row named `name`, or null.
const WorkloadKindInfo* find_workload(std::string_view name);
// The thread programs' row.
const WorkloadKindInfo& program_workload();

}  // namespace lockstep::scenario
