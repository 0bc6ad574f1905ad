// The workloads a scenario can name, one row each (workload_kinds.cpp): its `kind`, the YAML
// keys it takes, how its parameters are loaded, and the built-in properties it checks. The
// loader, the schema and `lockstep --help` read this table; how a kind runs on the simulator
// and on real threads is the driver's half of the row (driver/workload_bindings.hpp). Adding
// a workload is its file (core/workloads/) with its loader, and a row in each table.
#pragma once

#include <any>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

struct WorkloadKindInfo {
  std::string_view name;          // `workload: {kind: NAME}`; "program" for thread programs
  std::vector<std::string> keys;  // the keys of its map besides `kind`
  // Reads its parameters from the workload's map (null for thread programs, which are
  // read from `threads`). Errors name file, line and column (yaml::Source::fail).
  std::any (*load)(const yaml::Map& map, const MachineSpec& machine, const DesignSpec& design) = nullptr;
  // The built-in properties it reports; all are checked when a scenario lists none.
  std::vector<std::string> properties;
};

// Every row, in the order `lockstep --help` lists them: the bundled ones (thread programs
// last of them), then those registered. A deque: a row's address stays valid while others
// are added, as loaded scenarios point at their rows.
const std::deque<WorkloadKindInfo>& workload_kind_table();
// Adds a workload kind of a program's own. A program registers a whole workload through
// driver::register_workload (driver/workload_bindings.hpp), which calls this with the
// scenario's half. Call it before loading scenarios, from one thread. Throws
// std::invalid_argument when the name is taken or empty, the row has no load, or a property it
// lists is not declared in core/properties.hpp.
void register_workload_kind(WorkloadKindInfo row);
// The row named `name`, or null.
const WorkloadKindInfo* find_workload(std::string_view name);
// The thread programs' row.
const WorkloadKindInfo& program_workload();

}  // namespace lockstep::scenario
