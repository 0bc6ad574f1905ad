// counter-sharing (core/workloads/counter_sharing.hpp) on a modelled machine: false sharing
// costs what true sharing costs, padding removes it. The expectation is the textbook one
// (each add to a line another core wrote must fetch it over the coherence protocol), not a
// golden number: only the order and a wide ratio are asserted.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "driver/runner.hpp"
#include "spec/scenario.hpp"
#include "tests/scenario_text.hpp"
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

namespace {

double adds_per_handover(const std::string& machine, int threads, int iterations) {
  const report::RowReport r = lockstep::testing::check_scenario_text(
      "counter-sharing-runs", "adds",
      "name: adds\nmachine: " + machine + "\nworkload: {kind: counter-sharing, layout: shared, threads: " +
          std::to_string(threads) + ", cpus: 2, iterations: " + std::to_string(iterations) +
          "}\nstrategy: {kind: timed, seed: 1}\nexpect: pass\n");
  INFO(r.message);
  REQUIRE(r.result == "pass");
  return r.workload.value("adds_per_handover");
}

}  // namespace

// adds_per_handover counts runs of consecutive values: one thread alone makes one run; two
// make runs of at least one add; and the longer the owner's window (the forward leg of a
// transfer, docs/machines.md "Coherence in time"), the longer the runs, which is what
// `lockstep calibrate` relies on when it fits that leg to the host's runs.
TEST_CASE("adds_per_handover: runs of one thread's adds, longer as the forward leg grows",
          "[workload][counter-sharing]") {
  CHECK(adds_per_handover("{preset: nehalem-2s}", 1, 500) == 500);
  const double thirds = adds_per_handover("{preset: nehalem-2s}", 2, 2000);
  CHECK(thirds >= 1);
  CHECK(thirds < 2000);
  double last = 0;
  for (const char* forward : {"0", "0.1", "0.3", "0.6"}) {
    const double runs = adds_per_handover(
        std::string("{preset: nehalem-2s, c2c_legs: {request: 0.2, forward: ") + forward + "}}", 2, 2000);
    INFO("forward " << forward << ": " << runs << " adds a handover");
    CHECK(runs >= last);
    last = runs;
  }
  CHECK(last > 2 * adds_per_handover("{preset: nehalem-2s, c2c_legs: {request: 0.2, forward: 0}}", 2, 2000));
}
