// The private futex table since 6.16 (docs/futex.md, "The private table since 6.16"): what the
// per-process reference and a fixed table size do to perf bench futex hash, as the model
// predicts them on a two-socket Skylake-SP. The reference is a pair of accesses to one line
// per operation, so the expectations are orderings that follow from where that line lives,
// not figures.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "driver/runner.hpp"
#include "scenario/scenario.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;

TEST_CASE("6.16's shared reference costs what 6.17's per-CPU one does not", "[futex][workload]") {
  const scenario::ScenarioFile file =
      scenario::load_scenario_file(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/futex/linux-6.16-reference.yaml");
  driver::RunOptions options;
  options.command = driver::Command::run;
  options.out_dir = (lockstep::testing::scratch_dir() / "futex-reference").string();
  const scenario::ScenarioReport report = driver::run_scenario_file(file, options);
  REQUIRE(report.rows.size() == 9);
  std::map<std::pair<std::string, std::string>, double> rate;
  for (const scenario::RowReport& row : report.rows) {
    INFO(row.message);
    CHECK(row.result == "pass");
    rate[{row.params.at(0).second, row.params.at(1).second}] = row.workload.value("ops_per_s");
  }
  for (const std::string buckets : {"16", "256", "4096"}) {
    CAPTURE(buckets);
    const double none = rate[{"linux-6.16-private", buckets}];
    const double shared = rate[{"linux-6.16", buckets}];
    const double per_cpu = rate[{"linux-6.17", buckets}];
    CAPTURE(none, shared, per_cpu);
    // 56 threads on two sockets take and drop one count: its line moves on every call.
    CHECK(shared < none / 3);
    // A CPU's own count stays in its cache: a few hits and the back pointer's read.
    CHECK(per_cpu > none * 0.85);
    CHECK(per_cpu <= none);
  }
  // -b 16: 56 threads' 57,344 futexes over 16 buckets queue on their locks.
  CHECK(rate[{"linux-6.17", "16"}] < rate[{"linux-6.17", "256"}] / 2);
}
