// The workloads a scenario can name, one row each (workload_registry.cpp): its `kind`, the
// YAML keys it takes, how it is loaded, how it runs on the simulator and natively, and the
// built-in properties it checks. The loader, the runners and `lockstep --help` read this
// table, so adding a workload is its file (core/workloads/) with its loader, and one row;
// nothing else switches on the kind.
#pragma once

#include <any>
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

// Every row, in the order `lockstep --help` lists them (thread programs last).
const std::vector<WorkloadKindInfo>& workload_registry();
// The row named `name`, or null.
const WorkloadKindInfo* find_workload(std::string_view name);
// The thread programs' row.
const WorkloadKindInfo& program_workload();

}  // namespace lockstep::scenario
