// Outcomes beyond pass and violation (spec/outcome.hpp): a witness of an `exists` condition
// is `reachable` and replays; a search without one is `unreachable`; a stuck execution is a
// `lost_wakeup` in docs/sources.md section 1's decidable sense, and otherwise a deadlock.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/summary_table.hpp"
#include "driver/runner.hpp"
#include "io/files.hpp"
#include "model/schedule_file.hpp"
#include "report/result_json.hpp"
#include "tests/scenario_fixtures.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;
using lockstep::report::RowReport;
using lockstep::report::ScenarioReport;
using namespace lockstep::cli;
using namespace lockstep::driver;
using namespace lockstep::scenario;
using lockstep::testing::fixture;

namespace {

std::string library(const std::string& name) { return std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/" + name; }

struct Checked {
  ScenarioReport report;
  RunOptions options;
};

Scenario load_one_of(const std::string& path) {
  ScenarioFile file = load_scenario_file(path);
  REQUIRE(file.rows.size() == 1);
  return file.rows.front();
}

Checked check(const std::string& path) {
  Checked c;
  c.options.out_dir = (lockstep::testing::scratch_dir() / "outcomes").string();
  c.report = run_scenario_file(load_scenario_file(path), c.options);
  REQUIRE(c.report.rows.size() == 1);
  return c;
}

// The row, which must have `result` for `property`, as its scenario expects.
const RowReport& row_of(const Checked& c, const std::string& result, const std::string& property) {
  const RowReport& r = c.report.rows.front();
  CHECK(r.result == result);
  CHECK(r.property == property);
  CHECK(r.expected == result + ": " + property);
  CHECK(r.matched);
  return r;
}

// Checks the scenario, which must find (and expect) a violation of `property`; its message.
std::string violation_of(const std::string& path, const std::string& property) {
  return row_of(check(path), "violation", property).message;
}

}  // namespace

TEST_CASE("a witness of an exists condition is reachable and its schedule replays it", "[outcome]") {
  const Checked c = check(library("litmus/sb-tso.yaml"));
  const RowReport& r = row_of(c, "reachable", "sb_relaxed");
  CHECK_THAT(r.message, Catch::Contains("final state satisfies 't0.r0 == 0 && t1.r1 == 0'"));
  REQUIRE_FALSE(r.schedule_path.empty());
  CHECK(c.report.result() == "reachable");

  const model::ScheduleFile schedule = model::parse_schedule(io::read_file(r.schedule_path), r.schedule_path);
  CHECK(schedule.property == "sb_relaxed");
  const ScenarioReport replayed = replay_schedule(schedule, r.schedule_path, c.options);
  REQUIRE(replayed.rows.size() == 1);
  CHECK(replayed.rows.front().result == "reachable");
  CHECK(replayed.rows.front().matched);
  CHECK(replayed.rows.front().trace_sha256 == r.trace_sha256);

  const nlohmann::json json = nlohmann::json::parse(report::results_json({c.report}));
  CHECK(json["result"] == "reachable");
  CHECK(json["property"] == "sb_relaxed");
  CHECK(json["expected"] == "reachable: sb_relaxed");
  CHECK_THAT(summary_table({c.report}), Catch::Contains("reachable: sb_relaxed  reachable: sb_relaxed"));
}

TEST_CASE("a search that reaches no exists condition is unreachable", "[outcome]") {
  const Checked c = check(library("litmus/sb-sc.yaml"));
  const RowReport& r = row_of(c, "unreachable", "sb_relaxed");
  CHECK(r.message == "no execution within the bounds reaches sb_relaxed");
  CHECK(r.schedule_path.empty());
  const nlohmann::json json = nlohmann::json::parse(report::results_json({c.report}));
  CHECK(json["result"] == "unreachable");
  CHECK(json["property"] == "sb_relaxed");
}

TEST_CASE("an unreachable expectation does not match a witness, nor the other way round", "[outcome]") {
  const Scenario reached = load_one_of(library("litmus/sb-tso.yaml"));
  Scenario expects_unreachable = reached;
  expects_unreachable.expect = Expectation{Expectation::Kind::unreachable, "sb_relaxed", {}};
  RowReport row;
  row.result = "violation";  // as the search reports a witness, before judge names it
  row.property = "sb_relaxed";
  judge(row, expects_unreachable);
  CHECK(row.result == "reachable");
  CHECK(row.expected == "unreachable: sb_relaxed");
  CHECK_FALSE(row.matched);

  RowReport none;
  none.result = "pass";
  none.executions = 10;
  judge(none, reached);
  CHECK(none.result == "unreachable");
  CHECK(none.outcome() == "unreachable: sb_relaxed");
  CHECK_FALSE(none.matched);
}

TEST_CASE("a futex wake that misses its waiter is a lost wakeup naming both", "[outcome]") {
  const std::string message = violation_of(library("futex/lost-wakeup-missing-barrier.yaml"), "lost_wakeup");
  CHECK_THAT(message, Catch::StartsWith("thread 'waiter' sleeps in a futex wait on f for the value 0 (op at "));
  CHECK_THAT(message, Catch::Contains("but f holds 1; the futex wake of f by thread 'waker' (op at "));
  CHECK_THAT(message, Catch::EndsWith("asked to wake all and woke 0"));
}

TEST_CASE("a lost wakeup counts as a deadlock where only deadlock is checked", "[outcome]") {
  violation_of(fixture("good/lost_wakeup_as_deadlock.yaml"), "deadlock");
}

TEST_CASE("one sleeper left by a wake of one is a deadlock, not a lost wakeup", "[outcome]") {
  const std::string message = violation_of(fixture("good/wake_one_of_two.yaml"), "deadlock");
  CHECK_THAT(message, Catch::StartsWith("no thread can run:"));
}

TEST_CASE("a timed run cut short by the step bound fails, whatever the scenario checks", "[outcome]") {
  // counter-timed checks no property by name; a window it cannot finish would report rates of
  // a part of the run (or zero), so it is a violation of bound_exceeded all the same.
  Scenario s = load_one_of(library("basics/counter-timed.yaml"));
  s.strategy.max_steps = 500;
  RunOptions options;
  options.out_dir = (lockstep::testing::scratch_dir() / "outcomes-bound").string();
  ScenarioFile file;
  file.rows = {s};
  const ScenarioReport report = run_scenario_file(file, options);
  REQUIRE(report.rows.size() == 1);
  const RowReport& r = report.rows.front();
  CHECK(r.result == "violation");
  CHECK(r.property == "bound_exceeded");
  CHECK_THAT(r.message, Catch::Contains("raise strategy.max_steps"));
  CHECK_FALSE(r.matched);
}
