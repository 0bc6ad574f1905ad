// What a command found, per scenario and per sweep row: the data behind the result JSON
// (docs/results.md), the JUnit report, the CSV of a sweep and the summary table.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lockstep::cli {

struct RowReport {
  std::vector<std::pair<std::string, std::string>> params;  // sweep values of this row
  std::string result;      // "pass" or "violation"
  std::string property;    // violated property (result == "violation")
  std::string message;     // what the violation says
  std::string expected;    // "pass" or "violation: <property>"
  bool matched = false;    // result agrees with expected
  std::string strategy;    // timed, random, replay
  std::uint64_t seed = 0;
  std::uint64_t executions = 0;
  bool exhaustive = false;  // true only when every execution within the bounds was covered
  std::uint64_t sim_ops = 0;  // visible operations simulated, over all executions
  std::uint64_t steps = 0;    // visible operations of the reported execution
  std::uint64_t virtual_time_ns = 0;  // of the reported execution
  double elapsed_s = 0;       // host time (never part of a trace)
  std::string trace_sha256;   // of the reported execution's trace bytes
  std::string trace_path;         // where the trace was written, if it was
  std::string chrome_trace_path;  // likewise for the Chrome trace-event JSON
  std::string schedule_path;      // on violation: the schedule file that replays it
  std::string replay_command;     // on violation: the exact command that replays it
};

struct ScenarioReport {
  std::string scenario;  // path of the scenario file
  std::string name;
  std::string command;   // run, check or replay
  bool swept = false;
  std::vector<RowReport> rows;

  // A scenario is a violation when any row is; it matched when every row did.
  std::string result() const {
    for (const RowReport& r : rows)
      if (r.result != "pass") return r.result;
    return "pass";
  }
  bool matched() const {
    for (const RowReport& r : rows)
      if (!r.matched) return false;
    return !rows.empty();
  }
};

}  // namespace lockstep::cli
