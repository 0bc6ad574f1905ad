// `lockstep replay`: a schedule file's scenario row, loaded with its params, run once under
// the recorded choices (driver/row_runner.hpp).
#include <cstdio>

#include <fmt/format.h>

#include "driver/row_runner.hpp"
#include "driver/runner.hpp"
#include "io/files.hpp"
#include "model/replay_strategy.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::RowReport;
using report::ScenarioReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

// The schedule's scenario with its params; an error names the schedule's line that caused
// it: the scenario line when the file cannot be loaded, else the first param that breaks it.
Scenario load_scheduled_scenario(const model::ScheduleFile& schedule, const std::string& schedule_path) {
  const auto at = [&](std::size_t line, const std::string& what) {
    return ScenarioError(fmt::format("{}:{}: {}", schedule_path, line, what));
  };
  try {
    return load_scenario_row(schedule.scenario, schedule.params);
  } catch (const std::exception&) {
    // Which line is to blame: load again with none, then one more param at a time.
  }
  try {
    load_scenario_row(schedule.scenario, {});
  } catch (const std::exception& e) {
    throw at(schedule.scenario_line, fmt::format("scenario '{}': {}", schedule.scenario, e.what()));
  }
  std::vector<std::pair<std::string, std::string>> params;
  for (std::size_t k = 0; k < schedule.params.size(); ++k) {
    params.push_back(schedule.params[k]);
    try {
      load_scenario_row(schedule.scenario, params);
    } catch (const std::exception& e) {
      const std::size_t line = k < schedule.param_lines.size() ? schedule.param_lines[k] : 0;
      throw at(line, fmt::format("param {}={}: {}", schedule.params[k].first, schedule.params[k].second, e.what()));
    }
  }
  return load_scenario_row(schedule.scenario, schedule.params);  // rethrows what no single line explains
}

}  // namespace

ScenarioReport replay_schedule(const model::ScheduleFile& schedule, const std::string& schedule_path,
                               const RunOptions& options) {
  const Scenario scenario = load_scheduled_scenario(schedule, schedule_path);
  require_simulable(scenario);
  const std::string sha = io::sha256_hex(io::read_file(schedule.scenario));
  if (!schedule.scenario_sha256.empty() && sha != schedule.scenario_sha256)
    std::fprintf(stderr, "%s: warning: %s changed since this schedule was recorded\n", schedule_path.c_str(),
                 schedule.scenario.c_str());
  ScenarioFile file;
  file.path = schedule.scenario;
  file.sha256 = sha;
  file.swept = !schedule.params.empty();
  ScenarioReport report;
  report.scenario = schedule.scenario;
  report.name = scenario.name;
  report.command = "replay";
  report.swept = false;
  RowRunner runner(file, scenario, 0, options);
  RowReport row;
  try {
    row = runner.replay(schedule);
  } catch (const model::ScheduleMismatch& e) {
    const std::string where =
        schedule.choices_line != 0 ? fmt::format("{}:{}", schedule_path, schedule.choices_line) : schedule_path;
    throw model::ScheduleMismatch(fmt::format("{}: {}", where, e.what()));
  }
  row.params = scenario.params;
  judge(row, scenario);
  report.rows.push_back(std::move(row));
  return report;
}

}  // namespace lockstep::driver
