// The `machine` section of a scenario (docs/scenarios.md#machine): the flat preset with its
// CPU count and costs, or a modelled machine (sim/machine/presets.hpp, docs/machines.md)
// with its overrides, validated field by field like the rest of the file.
#pragma once

#include "scenario/scenario.hpp"
#include "scenario/yaml_fields.hpp"

namespace lockstep::scenario {

// Reads root's `machine` (absent: the flat preset with two CPUs). Throws ScenarioError.
MachineSpec load_machine(const yaml::Map& root);

}  // namespace lockstep::scenario
