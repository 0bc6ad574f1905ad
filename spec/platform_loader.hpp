// The top-level `platform` key (docs/scenarios.md, "Native runs") and the machine that a
// native scenario stands for: the host itself.
#pragma once

#include <string>

#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

// `platform: sim` (the default) or `platform: native`; `where` gets the value's place.
PlatformKind load_platform(const yaml::Map& root, std::string& where);

// The CPUs this process may run on, renumbered 0..n-1, with their NUMA nodes: what a native
// scenario's workload defaults (threads, cpus) and table sizing count.
MachineSpec host_machine();

}  // namespace lockstep::scenario
