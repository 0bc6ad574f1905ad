// Runs one row of a scenario file through the CLI's runner with a trace file, and reads the
// trace back through the trace library's reader (trace/reader.hpp) as JSON events: for
// tests of what the simulator writes into traces.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/runner.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"
#include "trace/format.hpp"
#include "trace/reader.hpp"

namespace lockstep::testing {

struct TracedRun {
  report::RowReport report;
  nlohmann::json header;
  std::vector<nlohmann::json> events;  // every line after the header, in file order

  // The events of kind `ev` (and, for ops, of operation `op`), in file order.
  std::vector<nlohmann::json> of(const std::string& ev) const {
    std::vector<nlohmann::json> out;
    for (const nlohmann::json& e : events)
      if (e.at(std::string(trace::field::ev)) == ev) out.push_back(e);
    return out;
  }
};

inline std::string library_scenario(const std::string& name) {
  return std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/" + name;
}

// Runs row `row` (from 0) of the scenario at `path` (`check`) and reads its trace.
inline TracedRun traced_run(const std::string& path, std::size_t row = 0) {
  const scenario::ScenarioFile file = scenario::load_scenario_file(path);
  REQUIRE(row < file.rows.size());
  const scenario::ScenarioFile one{file.path, file.sha256, false, {file.rows[row]}};
  const auto dir = scratch_dir();
  driver::RunOptions options;
  options.out_dir = dir.string();
  options.trace_path = (dir / "run.trace.jsonl").string();
  const report::ScenarioReport report = driver::run_scenario_file(one, options);
  REQUIRE(report.rows.size() == 1);
  TracedRun run;
  run.report = report.rows.front();
  std::ifstream in(options.trace_path, std::ios::binary);
  REQUIRE(in);
  trace::Reader reader(in, options.trace_path);
  run.header = nlohmann::json(reader.header());
  while (reader.next()) run.events.push_back(reader.event().json());
  reader.require_end();
  REQUIRE_FALSE(run.events.empty());
  return run;
}

inline std::uint64_t hex_address(const nlohmann::json& value) {
  return std::stoull(value.get<std::string>(), nullptr, 16);
}

}  // namespace lockstep::testing
