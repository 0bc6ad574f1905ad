// Checks a scenario written in a test as YAML text: the file goes to the test's scratch
// directory (so its errors name a real file and line), and its one row's report comes back.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "driver/runner.hpp"
#include "report/row_report.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"

namespace lockstep::testing {

// Writes `yaml` to GROUP/NAME.yaml in the scratch directory; returns the file.
inline std::filesystem::path write_scenario_text(const std::string& group, const std::string& name,
                                                 const std::string& yaml) {
  const std::filesystem::path dir = scratch_dir() / group;
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / (name + ".yaml");
  std::ofstream(file) << yaml;
  return file;
}

inline report::RowReport check_scenario_text(const std::string& group, const std::string& name,
                                             const std::string& yaml) {
  const std::filesystem::path file = write_scenario_text(group, name, yaml);
  driver::RunOptions options;
  options.out_dir = (file.parent_path() / "out").string();
  const report::ScenarioReport report = driver::run_scenario_file(scenario::load_scenario_file(file.string()), options);
  REQUIRE(report.rows.size() == 1);
  return report.rows.front();
}

}  // namespace lockstep::testing
