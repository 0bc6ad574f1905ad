// Helpers shared by the tests that load scenario fixtures (tests/data/scenarios/).
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "cli/scenario.hpp"

namespace lockstep::cli::testing {

inline std::string fixture(const std::string& name) {
  return std::string(LOCKSTEP_SOURCE_DIR) + "/tests/data/scenarios/" + name;
}

inline Scenario load_one(const std::string& name) {
  ScenarioFile file = load_scenario_file(fixture(name));
  REQUIRE(file.rows.size() == 1);
  return file.rows.front();
}

// The error a file fails with, or "(loaded without error)".
inline std::string error_of(const std::string& path) {
  try {
    load_scenario_file(path);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded without error)";
}

}  // namespace lockstep::cli::testing
