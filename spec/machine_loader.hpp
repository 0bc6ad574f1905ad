// The `machine` section of a scenario (docs/scenarios.md#machine): the flat preset with its
// CPU count and costs, or a modelled machine (sim/machine/presets.hpp, docs/machines.md)
// with its overrides, validated field by field like the rest of the file.
#pragma once

#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

// Reads root's `machine` (absent: the flat preset with two CPUs). Throws ScenarioError.
MachineSpec load_machine(const yaml::Map& root);

// Every key a scenario's `machine:` map may hold (the JSON Schema lists them).
std::vector<std::string_view> machine_keys();

// A machine file (docs/machines.md, "Machine files"): `machine:`, a machine map in the
// scenario syntax, and optionally `calibration:`, what `lockstep calibrate` recorded.
// `named_at` ("file:line:col" of a scenario's `file:` key, or empty) prefixes a file that
// cannot be read. Throws ScenarioError at the file's line and column.
struct MachineFile {
  MachineSpec machine;
};
MachineFile load_machine_file(const std::string& path, const std::string& named_at = "");

}  // namespace lockstep::scenario
