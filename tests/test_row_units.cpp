// A sweep's rows on remote ranks (driver/row_units.hpp, docs/distributed.md "Sweeps"), without
// MPI: loopback lanes serve row units through the same UnitServer and byte encodings a rank
// uses. The report and the files must be those of one process running every row.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "driver/row_units.hpp"
#include "driver/runner.hpp"
#include "driver/unit_server.hpp"
#include "io/files.hpp"
#include "report/row_codec.hpp"
#include "scratch_dir.hpp"

using namespace lockstep;  // NOLINT(google-build-using-namespace)

namespace {

class LoopbackRows final : public driver::RowLanes {
 public:
  explicit LoopbackRows(std::size_t ranks) {
    for (std::size_t r = 0; r < ranks; ++r) servers_.push_back(std::make_unique<Rank>());
  }
  model::RemoteLanes* for_row(const scenario::ScenarioFile&, std::size_t) override { return nullptr; }
  std::size_t ranks() const override { return servers_.size(); }
  std::string call(std::size_t lane, const scenario::ScenarioFile& file, std::size_t row,
                   const std::string& unit) override {
    Rank& rank = *servers_.at(lane);
    const std::lock_guard lock(rank.mutex);
    ++rank.rows;
    // The lanes answer late, so that rank 0's own thread runs some rows too.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return rank.server.serve(file.path, file.sha256, row, unit);
  }
  std::size_t rows_served() const {
    std::size_t n = 0;
    for (const auto& r : servers_) n += r->rows;
    return n;
  }

 private:
  struct Rank {
    std::mutex mutex;
    driver::UnitServer server{1};
    std::size_t rows = 0;
  };
  std::vector<std::unique_ptr<Rank>> servers_;
};

// A report without its host times (which differ between any two runs).
std::string without_host_times(report::RowReport r) {
  r.elapsed_s = 0;
  r.sim_ops_per_host_s = 0;
  r.executions_per_s = 0;
  return report::encode_row_report(r);
}

std::map<std::string, std::string> files_in(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files[e.path().filename().string()] = io::read_file(e.path().string());
  return files;
}

}  // namespace

TEST_CASE("a sweep's rows run on remote ranks report what one process does", "[driver][distributed]") {
  const testing::ScratchDir scratch("lockstep-row-units");
  // A timed sweep of the futex table, and one that saves every row's traces (files to carry).
  for (const char* path : {"scenarios/futex/wake-batches.yaml", "scenarios/basics/counter-under-spinlock.yaml"}) {
    INFO(path);
    const scenario::ScenarioFile file = scenario::load_scenario_file(std::string(LOCKSTEP_SOURCE_DIR) + "/" + path);
    REQUIRE(file.rows.size() > 1);
    driver::RunOptions one;
    one.command = driver::Command::run;
    one.save_traces = true;
    one.out_dir = (scratch.path() / "one").string();
    const report::ScenarioReport alone = driver::run_scenario_file(file, one);
    for (std::size_t ranks : {1U, 3U}) {
      INFO("remote ranks " << ranks);
      driver::RunOptions many = one;
      many.out_dir = (scratch.path() / ("many" + std::to_string(ranks))).string();
      LoopbackRows lanes(ranks);
      many.lanes = &lanes;
      const report::ScenarioReport spread = driver::run_scenario_file(file, many);
      CHECK(lanes.rows_served() > 0);
      REQUIRE(spread.rows.size() == alone.rows.size());
      for (std::size_t i = 0; i < alone.rows.size(); ++i) {
        report::RowReport r = spread.rows[i];
        // The paths name this run's directory; the same file names.
        for (std::string* p : {&r.trace_path, &r.chrome_trace_path, &r.schedule_path, &r.replay_command}) {
          if (p->empty()) continue;
          REQUIRE(p->find(many.out_dir) != std::string::npos);
          *p = p->replace(p->find(many.out_dir), many.out_dir.size(), one.out_dir);
        }
        CHECK(without_host_times(r) == without_host_times(alone.rows[i]));
      }
      CHECK(files_in(many.out_dir) == files_in(one.out_dir));
      CHECK(!files_in(many.out_dir).empty());
    }
  }
}

TEST_CASE("a row's report survives its encoding whole", "[driver][distributed]") {
  report::RowReport r;
  r.params = {{"workload.batch", "15"}};
  r.result = "violation";
  r.elapsed_s = 0.1;
  r.counterexample.present = true;
  r.counterexample.steps = 7;
  r.workload.values = {{"ops_per_s", 1.5e6}};
  r.machine.c2c_ns = {{0, 1.5}, {1.5, 0}};
  r.litmus.emplace();
  r.litmus->conditions.push_back({});
  r.litmus->conditions.back().host = report::LitmusVerdict{"tso", "reachable", true, "dfs", 3, 0};
  r.smt.outcomes = {"x=1"};
  const report::RowReport back = report::decode_row_report(report::encode_row_report(r));
  CHECK(report::encode_row_report(back) == report::encode_row_report(r));
  CHECK(back.litmus->conditions.back().host->executions == 3);
  CHECK(!back.litmus->conditions.back().scenario);
  CHECK_THROWS_WITH(report::decode_row_report("not a report"), Catch::Contains("malformed"));
}
