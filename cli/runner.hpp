// Runs scenarios: timed simulation (`run`), exploration (`check`) and replay of a schedule
// file (`replay`), producing the reports behind every output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cli/outcome.hpp"
#include "cli/report.hpp"
#include "cli/scenario.hpp"
#include "model/schedule_file.hpp"

namespace lockstep::cli {

enum class Command : std::uint8_t { run, check, replay };
const char* name_of(Command command);

struct RunOptions {
  Command command = Command::check;
  std::optional<std::uint64_t> seed;        // --seed
  std::optional<std::uint64_t> executions;  // --executions
  std::string out_dir = "out";              // schedules (and traces with save_traces)
  bool save_traces = false;                 // write every row's trace and Chrome trace to out_dir
  std::string trace_path;                   // --trace (one row only)
  std::string chrome_trace_path;            // --chrome-trace (one row only)
  bool progress = false;                    // a progress line on stderr for long work
  std::optional<unsigned> workers;          // --workers: parallel search (random, pct)
};

// Throws ScenarioError, at the place in the file, when a row cannot be simulated: the
// scenario says `platform: native`, or names a host futex backend (kernel, std-atomic-wait).
void require_simulable(const Scenario& scenario);
void require_simulable(const ScenarioFile& file);

// Runs every row of a scenario file.
ScenarioReport run_scenario_file(const ScenarioFile& file, const RunOptions& options);

// Replays a schedule file against the scenario it names.
ScenarioReport replay_schedule(const model::ScheduleFile& schedule, const std::string& schedule_path,
                               const RunOptions& options);

}  // namespace lockstep::cli
