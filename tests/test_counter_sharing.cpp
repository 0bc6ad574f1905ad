// counter-sharing (core/workloads/counter_sharing.hpp) on a modelled machine: false sharing
// costs what true sharing costs, padding removes it. The expectation is the textbook one
// (each add to a line another core wrote must fetch it over the coherence protocol), not a
// golden number: only the order and a wide ratio are asserted.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "driver/runner.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;

TEST_CASE("false sharing costs like true sharing, padding removes it (nehalem-2s)", "[workload][counter-sharing]") {
  const scenario::ScenarioFile file = scenario::load_scenario_file(
      std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/machine/nehalem-2s-counter-sharing.yaml");
  driver::RunOptions options;
  options.command = driver::Command::run;
  options.out_dir = (lockstep::testing::scratch_dir() / "counter-sharing").string();
  const report::ScenarioReport report = driver::run_scenario_file(file, options);
  REQUIRE(report.rows.size() == 3);
  std::map<std::string, double> rate;
  for (const report::RowReport& row : report.rows) {
    INFO(row.message);
    CHECK(row.result == "pass");  // the counters add up to threads * iterations
    rate[row.params.front().second] = row.workload.value("ops_per_s");
  }
  INFO("shared " << rate["shared"] << ", packed " << rate["packed"] << ", padded " << rate["padded"]);
  // Each transfer carries the burst of adds its owner made while the request travelled
  // (docs/machines.md, "Coherence in time"), so a contended line is not a transfer per add:
  // this VM measured 5.7 times the padded rate against the shared one with two threads
  // (docs/compare.md). The model gives 4.4 with four; a line moved per add gave 30.
  CHECK(rate["padded"] > 3 * rate["packed"]);
  CHECK(rate["padded"] < 10 * rate["packed"]);
  CHECK(rate["packed"] < 2 * rate["shared"]);
  CHECK(rate["shared"] > 0);
}
