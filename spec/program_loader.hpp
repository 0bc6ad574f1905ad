// Thread programs from a scenario file: the `variables`, `locks` and `threads` sections and
// the final conditions of `properties` (docs/scenarios.md), validated into program::Program.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/workloads/program.hpp"
#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

// `root` is the scenario's top-level map; it must have `threads`. Throws ScenarioError.
program::Program load_program(const yaml::Map& root, const MachineSpec& machine, const DesignSpec& design);

// The final condition of property `name` (`what`: forall or exists), over `prog`'s variables
// (`x`) and thread registers (`t0.r1`). Throws ScenarioError.
program::FinalCondition load_final_condition(const yaml::Source& src, const std::string& name, const YAML::Node& expr,
                                             std::string_view what, const program::Program& prog);

}  // namespace lockstep::scenario
