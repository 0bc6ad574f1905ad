// A JSON Schema (draft 2020-12) of scenario files, generated from the tables the loaders read:
// the top-level keys, each workload's keys (the workload kinds), the strategies and their options,
// the properties, the machine presets and keys, and the designs' names. Editors that read
// JSON Schema for YAML (docs/scenarios.md, "Editor support") complete and check scenarios
// with it; the loader stays the judge (values' ranges, cross-key rules, file:line:col).
// `lockstep schema` prints it; docs/scenario.schema.json is its output, kept in step by a test.
#pragma once

#include <nlohmann/json.hpp>

namespace lockstep::scenario {

nlohmann::ordered_json scenario_schema();

}  // namespace lockstep::scenario
