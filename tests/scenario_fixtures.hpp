// Helpers shared by the tests that load scenario fixtures (tests/data/scenarios/).
#pragma once

#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>

#include "spec/scenario.hpp"

namespace lockstep::testing {

using scenario::load_scenario_file;
using scenario::Scenario;
using scenario::ScenarioError;
using scenario::ScenarioFile;

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

// A bad fixture (tests/data/scenarios/bad/) and the error it must fail with.
struct BadCase {
  const char* file;
  int line;
  int column;
  const char* says;
};

// Each file fails at exactly its line and column, with a message containing `says`.
inline void check_bad_cases(std::initializer_list<BadCase> cases) {
  for (const BadCase& c : cases) {
    const std::string path = fixture(std::string("bad/") + c.file);
    const std::string message = error_of(path);
    INFO(message);
    CHECK_THAT(message, Catch::StartsWith(path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": "));
    CHECK_THAT(message, Catch::Contains(c.says));
  }
}

}  // namespace lockstep::testing
