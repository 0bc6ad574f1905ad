// Runs scenarios: timed simulation (`run`), exploration (`check`) and replay of a schedule
// file (`replay`), producing the reports behind every output.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "driver/checkpoint_file.hpp"
#include "driver/progress.hpp"
#include "driver/row_lanes.hpp"
#include "model/schedule_file.hpp"
#include "model/search.hpp"
#include "report/row_report.hpp"
#include "spec/outcome.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// The driver speaks in the scenario layer's words.
using report::RowReport;
using report::ScenarioReport;
using scenario::Scenario;
using scenario::ScenarioFile;

enum class Command : std::uint8_t { run, check, replay };
const char* name_of(Command command);

struct RunOptions {
  Command command = Command::check;
  std::optional<std::uint64_t> seed;        // --seed
  std::optional<std::uint64_t> executions;  // --executions
  std::string out_dir = "out";              // schedules (and traces with save_traces)
  bool save_traces = false;                 // write every row's trace and Chrome trace to out_dir
  // --save-traces-limit: a row's saved trace is kept up to this many MiB (0: no limit); a
  // longer one is dropped, and said so (its hash is still the whole trace's). --trace is
  // never capped.
  std::uint64_t save_traces_limit_mib = 64;
  std::string trace_path;           // --trace (one row only)
  std::string chrome_trace_path;    // --chrome-trace (one row only)
  ProgressReporter progress;        // rows longer than a second report here (empty: none)
  std::optional<unsigned> workers;  // --workers: parallel search (every strategy but timed, naive)
  unsigned split_levels = 0;        // --split: a parallel dfs's branching levels handed out (0: on demand only)
  std::uint64_t min_piece_runs = model::SearchLimits{}.min_piece_runs;  // --min-piece: a split on demand's floor
  bool all_outcomes = false;    // --all-outcomes: the smt strategy lists every reachable final state
  RowLanes* lanes = nullptr;    // remote ranks (an MPI launch, docs/distributed.md)
  CheckpointFiles checkpoints;  // --checkpoint, --checkpoint-every, --resume
  bool lock_profile = false;    // --lock-profile: timed rows profile their locks (docs/os.md)
  // dfs rows: stratified probes estimate the search first (model/search_estimate.hpp); 0:
  // none. --estimate: the estimate alone, no search.
  std::uint64_t estimate_probes = 2;
  bool estimate_only = false;
  std::size_t estimate_strata = 0;  // --strata: per level (0: from the budget)
};

// Throws ScenarioError, at the place in the file, when a row cannot be simulated: the
// scenario says `platform: native`, or names a host futex backend (kernel, std-atomic-wait).
void require_simulable(const Scenario& scenario);
void require_simulable(const ScenarioFile& file);

// Runs one row of a scenario file (`options.command`: a timed run, or a search): the unit a
// sweep is made of, which a front end may spread over processes; judged against `expect`.
RowReport run_scenario_row(const ScenarioFile& file, std::size_t row, const RunOptions& options);

// Runs every row of a scenario file, in order.
ScenarioReport run_scenario_file(const ScenarioFile& file, const RunOptions& options);

// Replays a schedule file against the scenario it names.
ScenarioReport replay_schedule(const model::ScheduleFile& schedule, const std::string& schedule_path,
                               const RunOptions& options);

}  // namespace lockstep::driver
