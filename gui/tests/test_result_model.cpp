// The viewer's result model on results written by `lockstep run/check --json` and on broken ones.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <string>

#include <nlohmann/json.hpp>

#include "gui/model/document.hpp"
#include "gui/model/result.hpp"
#include "gui/tests/result_helpers.hpp"

namespace lockstep::view {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_result(text);
  } catch (const ResultError& e) {
    return e.what();
  }
  return "(no error)";
}

// A real result with one member replaced, to break it in one known place.
std::string with_member(const std::filesystem::path& path, const std::string& key, const nlohmann::json& value) {
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(testing::slurp(path));
  json[key] = value;
  return json.dump(2);
}

TEST_CASE("view: a latency-probe result has its histogram, peaks and sources") {
  const auto path = testing::record_result("run", "scenarios/machine/nehalem-2s-latency.yaml", "latency");
  REQUIRE(!path.empty());
  const ResultFile file = load_result(path);
  REQUIRE(file.scenarios.size() == 1);
  const ScenarioResult& s = file.scenarios[0];
  CHECK(s.scenario == "scenarios/machine/nehalem-2s-latency.yaml");
  CHECK(s.command == "run");
  CHECK_FALSE(s.swept);
  REQUIRE(s.rows.size() == 1);
  const ResultRow& row = s.rows[0];
  CHECK(row.verdict() == "pass");
  CHECK(row.matched == true);
  REQUIRE(!row.histogram.empty());
  // Every sample is in one bin: the scenario asks for 20000 (its workload's `samples`).
  const auto samples = std::accumulate(row.histogram.begin(), row.histogram.end(), std::uint64_t{0},
                                       [](std::uint64_t n, const HistogramBin& b) { return n + b.count; });
  CHECK(samples == 20000);
  for (std::size_t i = 1; i < row.histogram.size(); ++i) CHECK(row.histogram[i - 1].hi_ns <= row.histogram[i].lo_ns);
  // The scenario's description: a local DRAM peak near 85 ns and a remote one near 135 ns, tallest first.
  REQUIRE(row.peaks_ns.size() >= 2);
  CHECK(std::abs(row.peaks_ns[0] - 85) < 10);
  CHECK(std::abs(row.peaks_ns[1] - 135) < 10);
  // Sources are the file's, in its order, and count every access.
  const auto json = nlohmann::ordered_json::parse(testing::slurp(path));
  REQUIRE(row.sources.size() == json["sources"].size());
  std::uint64_t answered = 0;
  for (const auto& [level, n] : row.sources) {
    CHECK(json["sources"][level] == n);
    answered += n;
  }
  CHECK(answered == json["sim_ops"].get<std::uint64_t>());
  REQUIRE(row.figure("virtual_time_ns"));
  CHECK(row.figure("virtual_time_ns")->value == std::to_string(json["virtual_time_ns"].get<std::uint64_t>()));
  CHECK(row.metrics.empty());  // a latency probe has measurements, no workload figures
  CHECK(!row.counterexample);
}

TEST_CASE("view: a c2c result has a square, symmetric matrix, slower across the sockets") {
  const auto path = testing::record_result("run", "scenarios/machine/nehalem-2s-c2c.yaml", "c2c");
  REQUIRE(!path.empty());
  const ResultFile file = load_result(path);
  const ResultRow& row = file.scenarios.at(0).rows.at(0);
  const std::size_t n = row.c2c_cpus.size();
  REQUIRE(n == 8);  // nehalem-2s: two sockets of four cores, one CPU per core
  REQUIRE(row.c2c_ns.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(row.c2c_ns[i].size() == n);
    CHECK(row.c2c_ns[i][i] == 0);
    for (std::size_t j = 0; j < n; ++j) CHECK(row.c2c_ns[i][j] == row.c2c_ns[j][i]);
  }
  CHECK(row.c2c_ns[0][4] > row.c2c_ns[0][1]);  // CPU 4 is on the other socket
  CHECK(row.histogram.empty());
}

TEST_CASE("view: a check result with a counterexample names its interleaving, trace and schedule") {
  const auto trace = testing::scratch_dir() / "cx.trace.jsonl";
  const auto path = testing::record_result("check", "scenarios/futex/lost-wakeup-missing-barrier.yaml", "cx",
                                           "--trace " + testing::quoted(trace));
  REQUIRE(!path.empty());
  const ResultFile file = load_result(path);
  const ResultRow& row = file.scenarios.at(0).rows.at(0);
  CHECK(row.verdict() == "violation: lost_wakeup");
  CHECK(row.expected == "violation: lost_wakeup");
  REQUIRE(row.counterexample);
  REQUIRE(!row.counterexample->interleaving.empty());
  CHECK(row.counterexample->interleaving.back().find("VIOLATION lost_wakeup") != std::string::npos);
  const auto json = nlohmann::json::parse(testing::slurp(path));
  CHECK(row.message == json["message"]);
  CHECK(row.counterexample->interleaving.size() == json["counterexample"]["interleaving"].size());
  CHECK(row.counterexample->figures.size() == json["counterexample"].size() - 1);
  CHECK(row.trace == trace.string());
  CHECK(!row.schedule.empty());
  CHECK(std::filesystem::exists(row.schedule));
  CHECK(row.replay_command.find(row.schedule) != std::string::npos);
  CHECK(std::holds_alternative<Trace>(load_document(trace)));  // the file kind comes from the content
}

TEST_CASE("view: a sweep has one row per combination, with its params and workload figures") {
  const auto path = testing::record_result("run", "scenarios/futex/pingpong.yaml", "sweep");
  REQUIRE(!path.empty());
  const ResultFile file = load_result(path);
  const ScenarioResult& s = file.scenarios.at(0);
  CHECK(s.swept);
  REQUIRE(s.rows.size() == 2);  // design.futex: [baseline, linux-3.14]
  CHECK(s.rows[0].params_text() == "design.futex=baseline");
  CHECK(s.rows[1].params_text() == "design.futex=linux-3.14");
  for (const ResultRow& row : s.rows) {
    CHECK(row.figure("round_trip_ns"));  // a futex-pingpong figure: a workload metric
    CHECK(row.figure("strategy"));       // a key figure
    CHECK(!row.sources.empty());
  }
  const Figure* design = s.rows[1].figure("design");
  REQUIRE(design);
  CHECK(design->value == "linux-3.14");
}

TEST_CASE("view: a result of several scenario files is a list of them") {
  const auto path = testing::record_result(
      "run", "scenarios/machine/nehalem-2s-c2c.yaml scenarios/machine/nehalem-2s-latency.yaml", "two");
  REQUIRE(!path.empty());
  const ResultFile file = load_result(path);
  REQUIRE(file.scenarios.size() == 2);
  CHECK(!file.scenarios[0].rows[0].c2c_ns.empty());
  CHECK(!file.scenarios[1].rows[0].histogram.empty());
}

TEST_CASE("view: the file kind is decided by the content") {
  const std::string header = R"({"format":"lockstep-trace","version":1})";
  CHECK(file_kind(header + "\n{\"t\":0,\"ev\":\"end\",\"steps\":0,\"outcome\":\"pass\"}\n") == FileKind::trace);
  CHECK(file_kind(R"({"format":"lockstep-tr)") == FileKind::trace);  // a cut header is still a trace's
  CHECK(file_kind(R"({"format":"chrome")"
                  "\n") == FileKind::trace);  // the trace parser names the wrong format
  CHECK(file_kind("{\n  \"scenario\": \"a.yaml\",\n  \"result\": \"pass\"\n}\n") == FileKind::result);
  CHECK(file_kind(R"({"scenario":"a.yaml","result":"pass"})"
                  "\n") == FileKind::result);
  CHECK(file_kind("[\n  {\n") == FileKind::result);
  CHECK(file_kind("\x89PNG") == FileKind::trace);  // the trace parser reports what is wrong
}

TEST_CASE("view: truncated and corrupt results are errors naming the line or the member") {
  const auto path = testing::record_result("run", "scenarios/machine/nehalem-2s-c2c.yaml", "broken");
  REQUIRE(!path.empty());
  const std::string text = testing::slurp(path);
  const std::string cut = text.substr(0, text.size() / 2);
  try {
    parse_result(cut);
    FAIL("a truncated result parsed");
  } catch (const ResultError& e) {
    CHECK(e.line() > 1);
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
  }
  CHECK(error_of("{\n  \"scenario\": \"a\",\n  oops\n}\n").find("line 3") != std::string::npos);
  CHECK(error_of("").find("line 1") != std::string::npos);
  CHECK(error_of("[]").find("no scenario") != std::string::npos);
  CHECK(error_of(R"({"scenario":"a.yaml"})").find("'result'") != std::string::npos);
  CHECK(error_of(R"({"probe":"fileio","platform":"native"})").find("file probe") != std::string::npos);
  CHECK(error_of(with_member(path, "c2c_ns", {{1.0, 2.0}})).find("c2c_ns") != std::string::npos);
  CHECK(error_of(with_member(path, "c2c_ns", {{0.0, "x"}, {1.0, 0.0}})).find("c2c_ns[0][1]") != std::string::npos);
  CHECK(error_of(with_member(path, "histogram", {{{"lo_ns", 1}, {"hi_ns", 2}, {"count", "many"}}}))
            .find("histogram[0].count") != std::string::npos);
  CHECK(error_of(with_member(path, "histogram", {{{"lo_ns", 5}, {"hi_ns", 5}, {"count", 1}}})).find("hi_ns") !=
        std::string::npos);
  CHECK(error_of(with_member(path, "result", 3)).find("'result' must be a string") != std::string::npos);
  CHECK(error_of(with_member(path, "swept", true)).find("rows") != std::string::npos);
  CHECK(error_of(with_member(path, "counterexample", {{"interleaving", {1, 2}}})).find("interleaving[0]") !=
        std::string::npos);
  CHECK(error_of(text) == "(no error)");  // the unbroken file parses

  const auto truncated = testing::scratch_dir() / "truncated.json";
  testing::spit(truncated, cut);
  try {
    load_document(truncated);
    FAIL("a truncated result loaded");
  } catch (const ResultError& e) {
    CHECK(std::string(e.what()).find(truncated.string()) == 0);
    CHECK(e.line() > 1);
  }
  CHECK_THROWS_AS(load_result(testing::record_trace("scenarios/futex/lost-wakeup-fixed.yaml", "not-a-result")),
                  ResultError);
  CHECK_THROWS_AS(load_document("/nonexistent.json"), TraceError);
}

}  // namespace
TEST_CASE("view: a row's members are sorted by report/'s tables, not taken for workload figures") {
  const ResultFile f = parse_result(R"({"scenario": "s.yaml", "result": "pass", "strategy": "dfs",
      "executions": 3, "internal_errors": 0, "parallel": {"tasks": 2}, "ranks": 2, "remote_units": 4,
      "smt": {"engine": "z3"}, "lock_profile": [], "litmus": {"runs": 1}, "ops_per_s": 12.5, "layout": "shared"})");
  const ResultRow& row = f.scenarios.at(0).rows.at(0);
  std::vector<std::string> metrics;
  for (const Figure& m : row.metrics) metrics.push_back(m.name);
  CHECK(metrics == std::vector<std::string>{"ops_per_s", "layout"});
  std::vector<std::string> figures;
  for (const Figure& m : row.figures) figures.push_back(m.name);
  CHECK(figures ==
        std::vector<std::string>{"strategy", "executions", "internal_errors", "parallel", "ranks", "remote_units"});
}

}  // namespace lockstep::view
