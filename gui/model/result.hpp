// The viewer's result model: a lockstep result JSON (docs/results.md, the `--json` output of
// `lockstep run/check/replay/native`) parsed into scenarios, their rows (one for an unswept
// scenario, one per sweep row otherwise), each row's verdict, key figures, machine
// measurements, workload figures, counterexample and the files it names. No Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gui/model/samples.hpp"

namespace lockstep::view {

// A file the viewer cannot read as a result: `line` is the 1-based line of a JSON syntax error
// (0 when the JSON is well-formed but not a lockstep result; the message names the member).
class ResultError : public std::runtime_error {
 public:
  ResultError(std::size_t line, const std::string& what);
  std::size_t line() const { return line_; }
  ResultError& with_line(std::size_t line) {
    line_ = line;
    return *this;
  }

 private:
  std::size_t line_;
};

// A member shown as it is, in file order: `name` and the value as text.
struct Figure {
  std::string name;
  std::string value;
};

struct Counterexample {
  std::vector<Figure> figures;            // preemptions, steps, minimized, ... as the file has them
  std::vector<std::string> interleaving;  // one readable line per step
};

struct ResultRow {
  std::vector<Figure> params;  // a sweep row's swept values, path -> value; empty when unswept
  std::string result;          // pass, violation, reachable, unreachable
  std::string property, message, expected;
  std::optional<bool> matched;
  std::vector<Figure> figures;  // the search's or run's key figures (strategy, executions, steps, ...)
  std::vector<Figure> metrics;  // the workload's own figures (round_trip_ns, ops_per_s, ...)
  // Machine measurements: latency-probe histogram and peaks, c2c matrix, sources.
  std::vector<HistogramBin> histogram;
  std::vector<double> peaks_ns;
  std::vector<int> c2c_cpus;
  std::vector<std::vector<double>> c2c_ns;                     // [i][j]: c2c_cpus[i] to c2c_cpus[j]
  std::vector<std::pair<std::string, std::uint64_t>> sources;  // level -> accesses, file order
  std::optional<Counterexample> counterexample;
  // Files the row names (empty when not written) and the command that replays the schedule.
  std::string trace, chrome_trace, schedule, replay_command;

  // "pass", or the result and its property: "violation: lost_update".
  std::string verdict() const;
  // "design.futex=baseline, threads=4"; empty when unswept.
  std::string params_text() const;
  const Figure* figure(std::string_view name) const;
};

struct ScenarioResult {
  std::string scenario, name, command, platform;
  bool swept = false;
  std::string result;  // the scenario's (for a sweep: the most telling row's)
  std::optional<bool> matched;
  std::vector<ResultRow> rows;  // never empty
};

struct ResultFile {
  std::vector<ScenarioResult> scenarios;  // one per scenario file given to the command; never empty
};

// Parses a whole result (one scenario object, or a list of them). Throws ResultError naming
// the line of a syntax error (a truncated file ends early) or the member that is missing or
// has the wrong type.
ResultFile parse_result(std::string_view text);

}  // namespace lockstep::view
