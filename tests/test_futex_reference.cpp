// The private futex table since 6.16 (docs/futex.md, "The private table since 6.16"), and the
// 2026 RFC that splits the bucket: what the
// per-process reference and a fixed table size do to perf bench futex hash, as the model
// predicts them on a two-socket Skylake-SP. The reference is a pair of accesses to one line
// per operation, so the expectations are orderings that follow from where that line lives,
// not figures.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "driver/runner.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;

namespace {

// Runs a scenario of scenarios/futex/ swept over (design, private_buckets): each row's ops/s
// by its two parameters' values; every row must pass.
std::map<std::pair<std::string, std::string>, double> rates_of(const std::string& name, std::size_t rows) {
  const scenario::ScenarioFile file =
      scenario::load_scenario_file(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/futex/" + name + ".yaml");
  driver::RunOptions options;
  options.command = driver::Command::run;
  options.out_dir = (lockstep::testing::scratch_dir() / name).string();
  const report::ScenarioReport report = driver::run_scenario_file(file, options);
  REQUIRE(report.rows.size() == rows);
  std::map<std::pair<std::string, std::string>, double> rate;
  for (const report::RowReport& row : report.rows) {
    INFO(row.message);
    CHECK(row.result == "pass");
    rate[{row.params.at(0).second, row.params.at(1).second}] = row.workload.value("ops_per_s");
  }
  return rate;
}

}  // namespace

TEST_CASE("6.16's shared reference costs what 6.17's per-CPU one does not", "[futex][workload]") {
  const auto rate = rates_of("linux-6.16-reference", 9);
  for (const std::string buckets : {"16", "256", "4096"}) {
    CAPTURE(buckets);
    const double none = rate.at({"linux-6.16-private", buckets});
    const double shared = rate.at({"linux-6.16", buckets});
    const double per_cpu = rate.at({"linux-6.17", buckets});
    CAPTURE(none, shared, per_cpu);
    // 56 threads on two sockets take and drop one count: its line moves on every call.
    CHECK(shared < none / 3);
    // A CPU's own count stays in its cache; what 6.17 still pays is the bucket's pointer to
    // its table, read before the lock (futex_hash) and after it: the first read fetches the
    // lock's line shared, and the lock then upgrades it (72-81% of none on this preset).
    CHECK(per_cpu > none * 0.6);
    CHECK(per_cpu < none);
  }
  // -b 16: 56 threads' 57,344 futexes over 16 buckets queue on their locks.
  CHECK(rate.at({"linux-6.17", "16"}) < rate.at({"linux-6.17", "256"}) / 2);
}

// The 2026 RFC (docs/futex.md, "The wait list apart from the lock"): with the chain on a line
// of its own, the bucket's pointer to its table, which follows the chain, leaves the lock's
// line, and futex_hash's lockless read of it no longer fetches the line lock contenders want.
TEST_CASE("the RFC's split bucket is faster at every table size on the EPYC", "[futex][workload]") {
  const auto rate = rates_of("linux-6.17-split", 6);
  for (const std::string buckets : {"16", "256", "4096"}) {
    CAPTURE(buckets, rate.at({"linux-6.17", buckets}), rate.at({"linux-6.17-split", buckets}));
    CHECK(rate.at({"linux-6.17-split", buckets}) > rate.at({"linux-6.17", buckets}) * 1.10);
  }
}
