// The result JSON's members and the workloads' figures are declared once, in report/: every
// member the writer (report/result_json.cpp) emits for a row of each kind of run is declared
// there, as a result member or as a workload's figure (the viewer sorts members by it:
// gui/tests/test_result_model.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/native_runner.hpp"
#include "driver/runner.hpp"
#include "report/headline_figures.hpp"
#include "report/result_json.hpp"
#include "report/result_members.hpp"
#include "report/workload_figures.hpp"
#include "scratch_dir.hpp"
#include "spec/scenario.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lockstep;

// Each kind of row, small: timed workloads of every registry kind that runs quickly, a search
// with a violation (a counterexample), a machine probe, and a sweep.
const char* const kScenarios[] = {
    "workload: {kind: counter-sharing, layout: shared, threads: 2, iterations: 50}\nstrategy: {kind: timed, seed: 1}",
    "design: {spinlock: ticket}\nworkload: {kind: lock-counter, threads: 2, iterations: 20}\nstrategy: {kind: timed, "
    "seed: 1}",
    "design: {futex: baseline}\nworkload: {kind: futex-hash, threads: 2, futexes: 16, runtime_us: 50, processes: 2}\n"
    "strategy: {kind: timed, seed: 1}",
    "design: {futex: baseline}\nworkload: {kind: futex-pingpong, threads: 2, runtime_us: 200}\nstrategy: {kind: timed, "
    "seed: 1}",
    "design: {futex: baseline}\nworkload: {kind: futex-wake, threads: 2, rounds: 3}\nstrategy: {kind: timed, seed: 1}",
    "design: {futex: baseline}\nworkload: {kind: ring, threads: 2, runtime_us: 200}\nstrategy: {kind: timed, seed: 1}\n"
    "scheduler: {idle: adaptive, placement: topology}",
    "workload: {kind: header-scan, buffers: 16, threads: 1}\nstrategy: {kind: timed, seed: 1}",
    "machine: {preset: nehalem-2s}\nworkload: {kind: ccbench, state: modified, op: cas, holders: [0], cpus: [1], "
    "repetitions: 4}\nstrategy: {kind: timed, seed: 1}",
    "machine: {preset: nehalem-2s}\nworkload: {kind: latency-probe, bytes: 65536, samples: 200}\nstrategy: {kind: "
    "timed, seed: 1}",
    "workload: {kind: counter-sharing, layout: shared, threads: 2, iterations: 1}\nstrategy: {kind: dfs}\n"
    "properties: [lost_update]",
};

}  // namespace

TEST_CASE("every member a result row holds is declared in report/", "[report]") {
  const fs::path dir = testing::scratch_dir() / "result-members";
  fs::create_directories(dir);
  int n = 0;
  for (const char* body : kScenarios) {
    const fs::path file = dir / fmt::format("s{}.yaml", n++);
    std::ofstream(file) << "name: members\n" << body << "\nexpect: pass\n";
    driver::RunOptions options;
    options.command = driver::Command::check;
    options.out_dir = (dir / "out").string();
    const report::ScenarioReport report =
        driver::run_scenario_file(scenario::load_scenario_file(file.string()), options);
    const nlohmann::ordered_json j = report::to_json(report);
    INFO(body);
    for (const auto& [key, value] : j.items()) {
      INFO(key);
      CHECK((report::find_result_member(key) != nullptr || report::find_figure(key) != nullptr));
    }
  }
}

TEST_CASE("the figures table: one entry per name, numbered families, headlines in rank order", "[report]") {
  std::vector<std::string_view> names;
  for (const report::FigureInfo& f : report::workload_figures()) {
    INFO(f.name);
    CHECK(std::count(names.begin(), names.end(), f.name) == 0);
    CHECK(report::find_result_member(f.name) == nullptr);  // a figure is not also a result member
    names.push_back(f.name);
  }
  CHECK(report::find_figure("ops_per_s_p7")->kind == report::FigureKind::numbered);
  CHECK(report::find_figure("ops_per_s_p0")->headline == 2);
  CHECK(report::find_figure("ops_per_s_px") == nullptr);
  CHECK(report::find_figure("hop_ns")->compared);
  CHECK(report::find_figure("header_ns")->compared);
  CHECK_FALSE(report::find_figure("threads")->compared);
  const auto h = report::headline_figures({"hop_ns", "ops_per_s", "ipis"});
  REQUIRE(h.size() == 3);
  CHECK(h[0].name == "ops_per_s");
  CHECK(h[1].name == "hop_ns");
  CHECK(h[2].name == "ipis");
}
