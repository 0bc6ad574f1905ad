#include "driver/runner.hpp"

#include <optional>

#include <fmt/format.h>

#include "driver/row_runner.hpp"
#include "driver/row_units.hpp"
#include "driver/sweep_checkpoint.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::RowReport;
using report::ScenarioReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

const char* name_of(Command command) {
  switch (command) {
    case Command::run:
      return "run";
    case Command::check:
      return "check";
    case Command::replay:
      return "replay";
  }
  return "?";
}

void require_simulable(const Scenario& s) {
  if (s.platform == PlatformKind::native)
    throw ScenarioError(
        fmt::format("{}: this scenario is for native runs (`platform: native`): run it with "
                    "`lockstep native {}`",
                    s.platform_where, s.path));
  if (s.design.futex && s.design.futex->backend != FutexBackendKind::table)
    throw ScenarioError(
        fmt::format("{}: futex '{}' is the host's futex, which exists only natively: run this "
                    "scenario with `lockstep native {}`, or simulate a table design",
                    s.design.futex->where, s.design.futex->name, s.path));
}

void require_simulable(const ScenarioFile& file) {
  for (const Scenario& s : file.rows) require_simulable(s);
}

RowReport run_scenario_row(const ScenarioFile& file, std::size_t row, const RunOptions& options) {
  const Scenario& s = file.rows.at(row);
  RowRunner runner(file, s, row, options);
  RowReport report = runner.run(options.command);
  report.params = s.params;
  judge(report, s);
  return report;
}

ScenarioReport run_scenario_file(const ScenarioFile& file, const RunOptions& options) {
  // `run` keeps the finished rows of a sweep in its checkpoint (driver/sweep_checkpoint.hpp);
  // `check` keeps a search's state instead (the row runner's).
  std::optional<SweepCheckpoint> rows_kept;
  if (options.command == Command::run && options.checkpoints.any()) rows_kept.emplace(file, options);
  SweepCheckpoint* const kept = rows_kept ? &*rows_kept : nullptr;
  // Under MPI a sweep's timed rows go to the ranks whole; a search's row is split into units
  // by the search itself (docs/distributed.md).
  if (options.command == Command::run && options.lanes != nullptr && options.lanes->ranks() > 0 && file.rows.size() > 1)
    return run_rows_on_ranks(file, options, kept);
  ScenarioReport report;
  report.scenario = file.path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.command = name_of(options.command);
  report.swept = file.swept;
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    std::optional<RowReport> done = kept != nullptr ? kept->finished(i) : std::nullopt;
    if (!done) {
      done = run_scenario_row(file, i, options);
      if (kept != nullptr) kept->row_done(i, *done);
    }
    report.rows.push_back(std::move(*done));
  }
  return report;
}

}  // namespace lockstep::driver
