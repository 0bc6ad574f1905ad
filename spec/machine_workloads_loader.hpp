// The `workload:` section for the machine workloads (latency-probe, c2c).
#pragma once

#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

sim::machine::LatencyProbeParams load_latency_probe(const yaml::Map& workload, const MachineSpec& machine);
sim::machine::C2cParams load_c2c(const yaml::Map& workload, const MachineSpec& machine);
sim::machine::CcbenchParams load_ccbench(const yaml::Map& workload, const MachineSpec& machine);

}  // namespace lockstep::scenario
