// lockstep: the command line. Exit codes: 0 every outcome matched its `expect`; 1 some did
// not; 2 bad input or usage; 3 the search met a state its algorithm says cannot happen (a
// checker bug: no verdict of that run is to be trusted).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/calibrate_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/import_command.hpp"
#include "cli/junit.hpp"
#include "cli/keys_command.hpp"
#include "cli/litmus_summary.hpp"
#include "cli/lock_profile_output.hpp"
#include "cli/measurements_csv.hpp"
#include "cli/native_probe.hpp"
#include "cli/progress_line.hpp"
#include "cli/summary_table.hpp"
#include "cli/sweep_csv.hpp"
#include "cli/sweep_table.hpp"
#include "core/futex/futex_designs.hpp"
#include "driver/fileio_probe.hpp"
#include "driver/native_runner.hpp"
#include "driver/runner.hpp"
#include "io/files.hpp"
#include "model/replay_strategy.hpp"
#include "model/schedule_file.hpp"
#include "model/strategy_spec.hpp"
#include "report/lock_profile_json.hpp"
#include "report/result_json.hpp"
#include "report/terminal_plots.hpp"
#include "spec/scenario.hpp"
#include "spec/scenario_schema.hpp"
#ifdef LOCKSTEP_HAVE_MPI
#include "mpi/mpi_session.hpp"
#include "mpi/rank_failure.hpp"
#endif

namespace lockstep::cli {

using report::MachineMeasurements;
using report::RowReport;
using report::ScenarioReport;
namespace {

// The command line loads scenarios (spec/), runs them through the driver (driver/) and
// writes what they found (the writers here, files through io/).
using namespace lockstep::driver;    // NOLINT(google-build-using-namespace)
using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace)
using io::read_file;
using io::write_file_atomically;

// How this process was launched: alone, or as one rank of an MPI job (docs/distributed.md).
struct Launch {
  driver::RowLanes* lanes = nullptr;                  // rank 0 of several: the others
  bool serving_rank = false;                          // a rank above 0: serves rank 0's units
  std::function<int(unsigned, std::uint64_t)> serve;  // workers, --min-piece
};

constexpr int kExitMatched = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternalError = 3;

struct Outputs {
  std::string json;
  std::string junit;
  std::string csv;
  std::string lock_profile;  // --lock-profile: CSV, or JSON when it ends in .json
  bool quiet = false;
  bool verbose = false;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void add_common(CLI::App& cmd, RunOptions& run, Outputs& out) {
  cmd.add_option("--seed", run.seed, "Seed of the run's PRNG (overrides the scenario's)");
  cmd.add_option("--json", out.json, "Write the result JSON here (docs/results.md)");
  cmd.add_option("--junit", out.junit, "Write a JUnit XML report here, for CI systems");
  cmd.add_option("--trace", run.trace_path, "Write the trace of the reported execution here (one scenario)");
  cmd.add_option("--chrome-trace", run.chrome_trace_path,
                 "Write the trace as Chrome trace-event JSON (Perfetto opens it) here (one scenario)");
  cmd.add_flag("--save-traces", run.save_traces, "Write every scenario's trace and Chrome trace to --out-dir");
  cmd.add_option("--save-traces-limit", run.save_traces_limit_mib,
                 "With --save-traces, keep a row's trace only up to this many MiB (0: no limit; default 64); --trace "
                 "is never capped")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 20));
  cmd.add_option("--out-dir", run.out_dir, "Directory for schedules and saved traces")->capture_default_str();
  cmd.add_flag("--quiet,-q", out.quiet, "Print nothing but errors");
  cmd.add_flag("--verbose,-v", out.verbose, "Print violation details and output paths");
}

// A native row's figures on one line: a native run is for its numbers, not its outcome.
std::string metrics_line(const WorkloadMetrics& w) {
  std::string line = " ";
  for (const auto& [name, value] : w.labels)
    if (name == "design") line += fmt::format(" {}={}", name, value);
  for (const auto& [name, value] : w.values)
    line += std::abs(value) >= 100 ? fmt::format(" {}={:.0f}", name, value) : fmt::format(" {}={:.3g}", name, value);
  return line + "\n";
}

// The smt strategy's side: what the solver did, whether the engine followed its witness,
// and with --all-outcomes every reachable final state.
std::string smt_summary(const RowReport& r) {
  const auto& m = r.smt;
  std::string out = fmt::format(
      "  smt ({}): {} events, {} queries, {:.3f} s{}{}\n", m.memory_model, m.events, m.queries, m.solver_s,
      m.complete ? std::string() : fmt::format(", while loops unrolled {} times: a loop could run longer", m.unroll),
      m.witness_replayed ? "; the engine followed the witness and reached the same outcome" : "");
  if (!m.outcomes.empty() || !m.outcomes_complete) {
    out += fmt::format("  {} reachable final state{}{}:\n", m.outcomes.size(), m.outcomes.size() == 1 ? "" : "s",
                       m.outcomes_complete ? "" : " (stopped at the cap)");
    for (const std::string& o : m.outcomes) out += fmt::format("    {}\n", o);
  }
  return out;
}

void print_row(const ScenarioReport& s, const RowReport& r, const Outputs& out) {
  std::string params;
  for (const auto& [path, value] : r.params) params += fmt::format(" {}={}", path, value);
  if (r.litmus) {  // a native run of thread programs: its histogram and the checker's verdicts
    fmt::print("{}", litmus_summary(s.name + params, r));
    return;
  }
  if (r.result == "estimate") {
    const auto& e = r.estimate;
    if (e.executions <= 0) {  // every probe's kept nodes died asleep: a sample says nothing
      fmt::print(
          "{}{}: no estimate: none of {} probes of {} strata reached a complete execution (try --strata or "
          "more --probes)\n",
          s.name, params, e.probes, e.strata);
      return;
    }
    fmt::print(
        "{}{}: dfs would complete about {:.0f} executions (95% interval +-{:.0f}, {:.0f}%), from {} probes of {} "
        "strata in {:.2f} s\n",
        s.name, params, e.executions, e.half_width, e.executions > 0 ? 100 * e.half_width / e.executions : 0.0,
        e.probes, e.strata, e.elapsed_s);
    return;
  }
  // A dfs or bounded search that its cap stopped says so: its "pass" covers only what it ran.
  const bool capped = r.result == "pass" && !r.exhaustive && (r.strategy == "dfs" || r.strategy == "bounded");
  const std::string scope =
      capped ? fmt::format(" within {} executions, not exhaustive", r.executions + r.pruned) : std::string();
  fmt::print("{}{}: {}{} (expected {}){}\n", s.name, params, r.outcome(), scope, r.expected,
             r.matched ? "" : "  MISMATCH");
  if (r.result != "pass") fmt::print("  {}\n", r.message);
  if (r.internal_errors > 0)
    fmt::print(
        "  INTERNAL ERROR: the search met {} state{} its algorithm says cannot happen; this verdict is not to be "
        "trusted (exit 3)\n",
        r.internal_errors, r.internal_errors == 1 ? "" : "s");
  if (s.platform == "native" && !r.workload.empty()) fmt::print("{}", metrics_line(r.workload));
  if (!r.machine_source.empty()) fmt::print("  machine: {}\n", machine_source_text(r.machine_source));
  if (s.platform == "native" && !r.trace_path.empty() && !out.verbose) fmt::print("  trace: {}\n", r.trace_path);
  if (r.counterexample.present) {
    const auto& c = r.counterexample;
    fmt::print("  counterexample: {} steps, {} preemption{}{}\n", c.steps, c.preemptions, c.preemptions == 1 ? "" : "s",
               !c.minimized                  ? ""
               : c.fewest_preemptions_proven ? " (fewest possible)"
                                             : " (minimized; fewer not ruled out)");
    // In the design's protocol steps, the raw steps folded under them (--verbose lists them).
    if (!r.protocol_steps.empty() && !out.verbose)
      fmt::print("  in the design's steps (#n: the raw steps each folds; --verbose lists them):\n");
    const auto& lines = r.protocol_steps.empty() ? r.interleaving
                        : out.verbose            ? r.protocol_steps_verbose
                                                 : r.protocol_steps;
    for (const std::string& line : lines) fmt::print("  {}\n", line);
  }
  if (!r.schedule_path.empty()) fmt::print("  schedule: {}\n  replay:   {}\n", r.schedule_path, r.replay_command);
  if (r.smt.present) fmt::print("{}", smt_summary(r));
  fmt::print("{}{}{}", render_histogram(r.machine), render_c2c(r.machine), render_ccbench(r.machine));
  if (!out.lock_profile.empty())
    fmt::print("{}", lock_profile_table(r.lock_profile, s.platform == "native" ? "host clock" : "virtual time",
                                        out.verbose ? 0 : 10));
  if (out.verbose) {
    fmt::print("  {} executions, {} steps, {} ns virtual, {:.3f} s, trace sha256 {}\n", r.executions, r.steps,
               r.virtual_time_ns, r.elapsed_s, r.trace_sha256);
    if (!r.trace_path.empty()) fmt::print("  trace: {}\n", r.trace_path);
    if (!r.chrome_trace_path.empty()) fmt::print("  chrome trace: {}\n", r.chrome_trace_path);
  }
}

// An output file must be writable before any work is done: a search of minutes must not
// end in "cannot write" with its verdict lost. The file is written atomically (a temporary
// beside it, then a rename), so its directory must take new files.
// Missing directories are created when the file is written, so the nearest one that exists
// must be a writable directory.
void require_writable(const std::string& path, const char* option) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return;  // "-": standard output
  const fs::path p = fs::absolute(path);
  if (fs::is_directory(p)) throw UsageError(fmt::format("{} {}: is a directory", option, path));
  fs::path dir = p.parent_path();
  while (!fs::exists(dir) && dir.has_parent_path() && dir != dir.parent_path()) dir = dir.parent_path();
  if (!fs::is_directory(dir)) throw UsageError(fmt::format("{} {}: {} is not a directory", option, path, dir.string()));
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: the directory {} is not writable", option, path, dir.string()));
}

// Two paths that name one file (a link, "./x" and "x", a hard link): written by both, one
// would destroy the other. Devices and FIFOs may be named twice (/dev/null).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  if (a == "-" || b == "-") return a == b;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const fs::file_status s = fs::status(a, ec);
    if (fs::is_character_file(s) || fs::is_fifo(s)) return false;
    return fs::equivalent(a, b, ec);
  }
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// Every output writable, none naming an input (`--json s.yaml s.yaml` would write over the
// scenario) or another output (`--json r.json --trace r.json` would keep one of them). One
// pair is meant: `--checkpoint F --resume F` goes on from F and keeps it current (F is read
// whole before the search, and replaced atomically), as the advice after a lost rank says.
void require_writable(const RunOptions& run, const Outputs& out, const std::vector<std::string>& inputs) {
  const std::vector<std::pair<const char*, std::string>> outputs{{"--json", out.json},
                                                                 {"--junit", out.junit},
                                                                 {"--csv", out.csv},
                                                                 {"--lock-profile", out.lock_profile},
                                                                 {"--trace", run.trace_path},
                                                                 {"--chrome-trace", run.chrome_trace_path},
                                                                 {"--checkpoint", run.checkpoints.write_path}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty()) continue;
    require_writable(path, option);
    for (const std::string& input : inputs)
      if (same_file(path, input) && !(path == run.checkpoints.write_path && input == run.checkpoints.resume_path))
        throw UsageError(fmt::format("{} {}: is an input of this command; not overwritten", option, path));
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].second.empty() && same_file(path, outputs[j].second))
        throw UsageError(fmt::format("{} {} and {} {} name one file: give each output its own", outputs[j].first,
                                     outputs[j].second, option, path));
  }
}

void write_outputs(const std::vector<ScenarioReport>& reports, const RunOptions& run, const Outputs& out) {
  if (!out.json.empty()) write_file_atomically(out.json, results_json(reports));
  if (!out.junit.empty()) write_file_atomically(out.junit, junit_xml(reports));
  if (!out.lock_profile.empty())
    write_file_atomically(out.lock_profile, out.lock_profile.ends_with(".json") ? lock_profile_file_json(reports)
                                                                                : lock_profile_csv(reports));
  // Machine measurements go beside the other outputs: <out-dir>/<stem>[-rowN].histogram.csv, .c2c.csv.
  for (const ScenarioReport& r : reports) {
    const std::string stem = fmt::format("{}/{}", run.out_dir, std::filesystem::path(r.scenario).stem().string());
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const MachineMeasurements& m = r.rows[i].machine;
      const std::string row = r.swept ? fmt::format("{}-row{}", stem, i + 1) : stem;
      if (!m.histogram.empty()) write_file_atomically(row + ".histogram.csv", histogram_csv(m));
      if (!m.c2c_ns.empty()) write_file_atomically(row + ".c2c.csv", c2c_csv(m));
    }
  }
  for (const ScenarioReport& r : reports) {
    if (!r.swept) continue;
    const std::string path =
        !out.csv.empty() ? out.csv
                         : fmt::format("{}/{}.csv", run.out_dir, std::filesystem::path(r.scenario).stem().string());
    write_file_atomically(path, sweep_csv(r));
  }
  if (out.quiet) return;
  if (reports.size() == 1) {
    for (const RowReport& row : reports.front().rows) print_row(reports.front(), row, out);
    fmt::print("{}", sweep_table(reports.front()));  // a measuring sweep's figures (empty for the others)
  } else {
    if (out.verbose)
      for (const ScenarioReport& s : reports)
        for (const RowReport& row : s.rows) print_row(s, row, out);
    for (const ScenarioReport& s : reports) fmt::print("{}", sweep_table(s));
    fmt::print("{}", summary_table(reports, isatty(STDOUT_FILENO) != 0));
  }
}

int exit_code(const std::vector<ScenarioReport>& reports) {
  bool internal = false;
  for (const ScenarioReport& r : reports) {
    if (r.internal_errors() == 0) continue;
    fmt::print(stderr, "lockstep: {}: the search met {} state(s) its algorithm says cannot happen (a checker bug)\n",
               r.scenario, r.internal_errors());
    internal = true;
  }
  if (internal) return kExitInternalError;
  for (const ScenarioReport& r : reports)
    if (!r.matched()) return kExitMismatch;
  return kExitMatched;
}

int run_files(const std::vector<std::string>& paths, RunOptions run, const Outputs& out) {
  // Validate every file before running any, so bad input never leaves partial results.
  std::vector<ScenarioFile> files;
  std::size_t rows = 0;
  for (const std::string& path : paths) {
    ScenarioFile file = load_scenario_file(path);
    try {
      require_simulable(file);
    } catch (const ScenarioError& e) {
      // `lockstep check scenarios/**/*.yaml`: the native-only scenarios of a library are
      // skipped with a note; one named alone is an error.
      if (paths.size() == 1) throw;
      if (!out.quiet) std::fprintf(stderr, "skipped: %s\n", e.what());
      continue;
    }
    rows += file.rows.size();
    files.push_back(std::move(file));
  }
  if (files.empty()) throw UsageError("every scenario given runs natively only: use `lockstep native`");
  if (rows > 1 && (!run.trace_path.empty() || !run.chrome_trace_path.empty()))
    throw UsageError("--trace and --chrome-trace take a single scenario row; use --save-traces for several");
  if (!out.csv.empty() && files.size() > 1) throw UsageError("--csv takes a single scenario file");
  if (run.checkpoints.any() && run.command == Command::check && rows > 1)
    throw UsageError("--checkpoint and --resume take a single scenario row (a checkpoint holds one search)");
  if (run.checkpoints.any() && run.command == Command::run && files.size() > 1)
    throw UsageError("--checkpoint and --resume take a single scenario file (a checkpoint holds one sweep)");
  std::vector<std::string> inputs = paths;
  if (!run.checkpoints.resume_path.empty()) inputs.push_back(run.checkpoints.resume_path);
  require_writable(run, out, inputs);
  if (!out.quiet && isatty(STDERR_FILENO) != 0) run.progress = print_progress;
  std::vector<ScenarioReport> reports;
  for (const ScenarioFile& file : files) reports.push_back(run_scenario_file(file, run));
  write_outputs(reports, run, out);
  return exit_code(reports);
}

// `lockstep native`: every file is loaded and checked to have a native form before any runs.
int native_files(const std::vector<std::string>& paths, RunOptions run, const Outputs& out, NativeOptions native) {
  std::vector<ScenarioFile> files;
  for (const std::string& path : paths) {
    files.push_back(load_scenario_file(path));
    require_native(files.back());
  }
  if (!out.csv.empty() && files.size() > 1) throw UsageError("--csv takes a single scenario file");
  // A sweep's rows each get a file named after the one given (-row<N>), so one file is the limit.
  if (files.size() > 1 && (!native.trace_path.empty() || !native.chrome_trace_path.empty()))
    throw UsageError("--trace and --chrome-trace take a single scenario file; use --save-traces for several");
  run.trace_path = native.trace_path;
  run.chrome_trace_path = native.chrome_trace_path;
  require_writable(run, out, paths);
  native.out_dir = run.out_dir;
  native.lock_profile = !out.lock_profile.empty();
  std::vector<ScenarioReport> reports;
  for (const ScenarioFile& file : files) reports.push_back(run_native_file(file, native));
  write_outputs(reports, run, out);
  return exit_code(reports);
}

int replay(const std::string& path, const RunOptions& run, const Outputs& out) {
  const model::ScheduleFile schedule = model::parse_schedule(read_file(path), path);
  require_writable(run, out, {path});
  std::vector<ScenarioReport> reports{replay_schedule(schedule, path, run)};
  write_outputs(reports, run, out);
  return exit_code(reports);
}

void list() {
  auto line = [](const char* what, const std::vector<std::string>& items) {
    fmt::print("{:<14} {}\n", what, fmt::join(items, ", "));
  };
  line("presets", machine_presets());
  std::vector<std::string> futex_designs;
  for (const futex::NamedDesign& d : futex::kNamedDesigns) futex_designs.emplace_back(d.name);
  futex_designs.emplace_back("kernel (native)");
  futex_designs.emplace_back("std-atomic-wait (native)");
  line("designs", {fmt::format("spinlock: {}", fmt::join(kSpinlockNames, ", "))});
  line("", {fmt::format("futex: {}", fmt::join(futex_designs, ", "))});
  line("", {fmt::format("mutex (thread programs' locks): {}", fmt::join(usync::kMutexNames, ", "))});
  line("workloads", workload_kinds());
  line("properties", builtin_properties());
  std::vector<std::string> strategies;
  for (const model::StrategyInfo& s : model::kStrategies) strategies.emplace_back(s.name);
  strategies.emplace_back("replay");  // a command, named here for the list's reader
  line("strategies", strategies);
  line("memory models", {"sc", "tso"});
  line("platforms", {"sim (run, check, replay)", "native (native)"});
}

// Thread programs run natively as litmus tests, many times (docs/model-checking.md, "Native
// litmus runs"); these bound the runs. Other workloads ignore them.
void add_litmus_options(CLI::App& native_cmd, NativeLitmusOptions& litmus) {
  native_cmd.add_option("--runs", litmus.runs, "Thread programs: runs to do (with --seconds, whichever ends first)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  native_cmd
      .add_option("--seconds", litmus.seconds,
                  fmt::format("Thread programs: time budget of the runs (default {} s unless --runs is given)",
                              NativeLitmusOptions::kDefaultSeconds))
      ->check(CLI::Range(0.001, 86400.0));
  native_cmd.add_option("--seed", litmus.seed, "Thread programs: seed of the start skews (default: the scenario's)");
  native_cmd
      .add_option("--skew", litmus.max_skew,
                  fmt::format("Thread programs: most pause instructions a thread spins before each run (default {})",
                              NativeLitmusOptions::kDefaultMaxSkew))
      ->check(CLI::Range(0, 1'000'000));
}

// `lockstep native probe fileio`: a nested subcommand, so `lockstep native FILE...` keeps its form.
CLI::App* add_fileio_probe(CLI::App& native_cmd, driver::FileioProbeOptions& probe) {
  CLI::App* probe_cmd = native_cmd.add_subcommand("probe", "Measure what this host's OS guarantees (no scenario)");
  probe_cmd->require_subcommand(1);
  CLI::App* fileio = probe_cmd->add_subcommand(
      "fileio", "Race real threads on files under --path: torn reads, interleaved writes, shared offsets, O_APPEND");
  fileio->add_option("--path", probe.probe.path, "Directory to probe; the files go in a temporary subdirectory")
      ->required()
      ->check(CLI::ExistingDirectory);
  fileio->add_option("--json", probe.json, "Write the result JSON here (docs/results.md, \"File probe\")");
  fileio->add_option("--seconds", probe.probe.seconds, "Time for the whole probe, shared among its experiments")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 3600.0));
  fileio->add_flag("--quiet,-q", probe.quiet, "Print nothing but errors");
  return fileio;
}

// What rank 0 prints when the MPI launcher stops it because a rank died (mpi/rank_failure.hpp).
std::string resume_advice(int argc, char** argv, const RunOptions& run) {
  // The same command, less any --resume it had: the advice adds the newest checkpoint's.
  std::string command = "lockstep";
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--resume") {
      ++i;
      continue;
    }
    if (a.starts_with("--resume=")) continue;
    command += fmt::format(" {}", a);
  }
  const std::string& checkpoint = run.checkpoints.write_path;
  return fmt::format(
      "lockstep: rank 0 was stopped by the MPI launcher: a rank died (the launcher's message names it) or the job "
      "was cancelled.\n"
      "  Counterexamples found so far are in {}/ (each written the moment it was found).\n"
      "  To go on, run the job again, on as many ranks as are left (results do not depend on the rank count):\n"
      "    mpirun -np N {}{}\n{}",
      run.out_dir, command, checkpoint.empty() ? "" : fmt::format(" --resume {}", checkpoint),
      checkpoint.empty()
          ? "  This search kept no checkpoint, so it starts again: give --checkpoint FILE to keep its finished units\n"
            "  (docs/distributed.md, \"Checkpoints\").\n"
          : "  It goes on from the last checkpoint: the units finished before it are not run again.\n");
}

int main_impl(int argc, char** argv, const Launch& launch) {
  CLI::App app{"lockstep: a deterministic simulator and model checker for synchronization designs"};
  app.set_version_flag("--version", std::string("lockstep ") + LOCKSTEP_VERSION);
  app.require_subcommand(1);
  RunOptions run;
  Outputs out;
  std::vector<std::string> files;
  std::string schedule;

  CLI::App* run_cmd = app.add_subcommand("run", "Timed simulation of scenarios on their simulated machine");
  run_cmd->add_option("files", files, "Scenario files")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--csv", out.csv, "Write a swept scenario's rows as CSV here");
  run_cmd->add_option("--lock-profile", out.lock_profile,
                      "Profile every lock (waits and holds per site, in virtual time) and write the table here: CSV, "
                      "or JSON for a name ending in .json (docs/os.md)");
  run_cmd->add_option("--checkpoint", run.checkpoints.write_path,
                      "Keep the finished rows of a sweep here, rewritten as each row finishes (docs/distributed.md)");
  run_cmd->add_option("--resume", run.checkpoints.resume_path, "Take the rows this checkpoint holds; run the rest")
      ->check(CLI::ExistingFile);
  add_common(*run_cmd, run, out);
  bool mpi = false;
  const auto add_mpi_flag = [&mpi](CLI::App& cmd) {
    cmd.add_flag("--mpi", mpi,
                 "Run as one rank of an MPI job (found by itself under mpirun or srun; docs/distributed.md)");
  };
  add_mpi_flag(*run_cmd);
  CLI::App* check_cmd = app.add_subcommand("check", "Explore interleavings of scenarios and check their properties");
  check_cmd->add_option("files", files, "Scenario files")->required()->check(CLI::ExistingFile);
  check_cmd->add_option("--executions", run.executions,
                        "Executions to explore, or the most to try for dfs and bounded (overrides the scenario's)");
  check_cmd
      ->add_option(
          "--workers", run.workers,
          "Parallel search over this many host threads (overrides the scenario's; same results for any number)")
      ->check(CLI::Range(1, 256));
  check_cmd
      ->add_option("--split", run.split_levels,
                   "A parallel dfs: branching levels whose branches become units as soon as they are known (default "
                   "0: none, every split made on demand when a worker or rank is idle; same results for any number, "
                   "docs/model-checking.md)")
      ->check(CLI::Range(0, 16));
  check_cmd
      ->add_option("--min-piece", run.min_piece_runs,
                   "A parallel dfs splits on demand only at a node whose branch has run this many executions "
                   "(same results for any number; docs/model-checking.md)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1'000'000'000}));
  check_cmd->add_flag("--estimate", run.estimate_only,
                      "dfs: estimate the executions the search would complete, without searching "
                      "(docs/model-checking.md, \"Estimating a search\")");
  check_cmd
      ->add_option("--probes", run.estimate_probes,
                   "dfs: stratified probes that estimate the search (before it, or alone with --estimate; 0: none "
                   "before a search)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1'000'000}));
  check_cmd
      ->add_option("--strata", run.estimate_strata,
                   "dfs: strata per level of each probe (0: as many as a fixed budget of re-run steps allows)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1'000'000}));
  check_cmd->add_flag("--all-outcomes", run.all_outcomes,
                      "strategy smt: also list every reachable final state (the solver, with blocking clauses)");
  check_cmd->add_option("--csv", out.csv, "Write a swept scenario's rows as CSV here");
  check_cmd->add_option("--checkpoint", run.checkpoints.write_path,
                        "Save a dfs, bounded, random or pct search's state here as it goes, on any number of workers "
                        "or ranks (docs/distributed.md)");
  check_cmd->add_option("--checkpoint-every", run.checkpoints.every_s, "Seconds between checkpoints")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 1e7));
  check_cmd->add_option("--resume", run.checkpoints.resume_path, "Go on from this checkpoint")
      ->check(CLI::ExistingFile);
  add_mpi_flag(*check_cmd);
  add_common(*check_cmd, run, out);
  CLI::App* replay_cmd = app.add_subcommand("replay", "Replay a schedule file and report what it shows");
  replay_cmd->add_option("schedule", schedule, "Schedule file")->required()->check(CLI::ExistingFile);
  add_common(*replay_cmd, run, out);
  CLI::App* native_cmd =
      app.add_subcommand("native", "Run scenarios' workloads natively: real threads pinned to this host's CPUs");
  // Not required(): `native probe fileio` takes no files; main_impl checks the plain form has some.
  native_cmd->add_option("files", files, "Scenario files")->check(CLI::ExistingFile);
  native_cmd->add_option("--json", out.json, "Write the result JSON here (docs/results.md)");
  native_cmd->add_option("--csv", out.csv, "Write a swept scenario's rows as CSV here");
  native_cmd->add_option("--lock-profile", out.lock_profile,
                         "Profile every lock (waits and holds per site, on the host's clock) and write the table "
                         "here: CSV, or JSON for a name ending in .json (docs/os.md)");
  native_cmd->add_option("--junit", out.junit, "Write a JUnit XML report here, for CI systems");
  native_cmd->add_option("--out-dir", run.out_dir, "Directory for a sweep's CSV and saved traces")
      ->capture_default_str();
  NativeOptions native;
  native_cmd->add_option("--trace", native.trace_path,
                         "Write the run's trace here (one scenario file; a sweep's rows insert -row<N>)");
  native_cmd->add_option("--chrome-trace", native.chrome_trace_path,
                         "Write the trace as Chrome trace-event JSON here (as --trace)");
  native_cmd->add_flag("--save-traces", native.save_traces, "Write every row's trace and Chrome trace to --out-dir");
  // How to trace: each needs a trace to write (checked in main_impl).
  const std::vector<CLI::Option*> trace_tuning{
      native_cmd
          ->add_option("--trace-buffer", native.trace.events_per_thread,
                       "Events each thread's trace buffer holds; a full one drops the rest (default: 1 Mi, fewer "
                       "with more than 32 threads)")
          ->check(CLI::Range(std::size_t{16}, std::size_t{1} << 28)),
      native_cmd->add_flag("--trace-steps", native.trace.steps,
                           "Also trace each thread's outermost protocol steps (futex_wait, futex_wake)"),
      native_cmd
          ->add_option("--trace-sample", native.trace.sample,
                       "Trace one in K lock holds (with --trace-steps, operations), drawn at random; futex queue, "
                       "park and unpark events are always traced")
          ->capture_default_str()
          ->check(CLI::Range(1U, 1U << 20))};
  native_cmd->add_flag("--quiet,-q", out.quiet, "Print nothing but errors");
  native_cmd->add_flag("--verbose,-v", out.verbose, "Print every row of several files");
  add_litmus_options(*native_cmd, native.litmus);
  driver::FileioProbeOptions probe;
  CLI::App* fileio_cmd = add_fileio_probe(*native_cmd, probe);
  CompareCommand compare;
  CLI::App* compare_cmd = add_compare(app, compare);
  CalibrateCommand calibrate;
  CLI::App* calibrate_cmd = add_calibrate(app, calibrate);
  KeysCommand keys;
  CLI::App* keys_cmd = add_keys(app, keys);
  ImportCommand import;
  CLI::App* import_litmus_cmd = add_import(app, import);
  driver::NativeProbeOptions machine_probe;
  add_native_probes(*native_cmd->get_subcommand("probe"), machine_probe);
  CLI::App* list_cmd = app.add_subcommand("list", "List presets, designs, workloads, properties, strategies");
  std::string schema_out;
  CLI::App* schema_cmd = app.add_subcommand(
      "schema", "Print the JSON Schema of scenario files, for editors (docs/scenarios.md, \"Editor support\")");
  schema_cmd->add_option("--out,-o", schema_out, "Write it here rather than to standard output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitMatched : kExitBadInput;
  }
  if (out.json == "-") out.quiet = true;  // the JSON alone on standard output

  // A rank above 0 serves rank 0's units: a search's (check) or whole sweep rows (run).
  if (launch.serving_rank)
    return check_cmd->parsed() || run_cmd->parsed() ? launch.serve(run.workers.value_or(1), run.min_piece_runs)
                                                    : kExitMatched;
#ifndef LOCKSTEP_HAVE_MPI
  if (mpi) throw UsageError("--mpi: this lockstep was built without MPI (install libopenmpi-dev, rebuild)");
#endif
  run.lanes = launch.lanes;
#ifdef LOCKSTEP_HAVE_MPI
  if (launch.lanes != nullptr) mpi::set_resume_advice(resume_advice(argc, argv, run));
#endif
  if (list_cmd->parsed()) {
    list();
    return kExitMatched;
  }
  if (schema_cmd->parsed()) {
    const std::string text = scenario::scenario_schema().dump(2) + "\n";
    if (schema_out.empty()) {
      fmt::print("{}", text);
    } else {
      require_writable(schema_out, "--out");
      io::write_file_atomically(schema_out, text);
    }
    return kExitMatched;
  }
  if (fileio_cmd->parsed()) return driver::run_fileio_probe(probe);
  if (import_litmus_cmd->parsed()) return run_import(import);
  if (keys_cmd->parsed()) {
    require_writable(keys.json, "--json");
    return run_keys(keys);
  }
  if (calibrate_cmd->parsed()) {
    require_writable(calibrate.out, "--out");
    return run_calibrate(calibrate);
  }
  if (compare_cmd->parsed()) {
    for (const auto& [path, option] : {std::pair{compare.json, "--json"},
                                       {compare.csv, "--csv"},
                                       {compare.junit, "--junit"},
                                       {compare.lock_profile, "--lock-profile"}})
      require_writable(path, option);
    return run_compare(compare);
  }
  if (machine_probe.kind != driver::NativeProbeKind::none) {
    require_writable(machine_probe.json, "--json");
    return driver::run_native_probe(machine_probe);
  }
  if (native_cmd->parsed()) {
    if (files.empty())
      throw UsageError("native takes scenario files, or `probe fileio --path DIR`, `probe memory|c2c|futex`");
    const bool tracing = !native.trace_path.empty() || !native.chrome_trace_path.empty() || native.save_traces;
    for (const CLI::Option* o : trace_tuning)
      if (o->count() > 0 && !tracing)
        throw UsageError(fmt::format("{} needs --trace, --chrome-trace or --save-traces", o->get_name()));
    return native_files(files, run, out, native);
  }
  if (replay_cmd->parsed()) {
    run.command = Command::replay;
    return replay(schedule, run, out);
  }
  run.command = run_cmd->parsed() ? Command::run : Command::check;
  run.lock_profile = !out.lock_profile.empty();
  return run_files(files, run, out);
}

}  // namespace
}  // namespace lockstep::cli

int main(int argc, char** argv) {
  using namespace lockstep;
  try {
    cli::Launch launch;
#ifdef LOCKSTEP_HAVE_MPI
    bool mpi = mpi::launched_by_mpi();
    for (int i = 1; i < argc; ++i) mpi = mpi || std::string_view(argv[i]) == "--mpi";
    if (mpi) {
      mpi::Session session(argc, argv);
      launch.lanes = session.rank() == 0 ? &session : nullptr;
      launch.serving_rank = session.rank() > 0;
      launch.serve = [&session](unsigned workers, std::uint64_t min_piece_runs) {
        return session.serve(workers, min_piece_runs);
      };
      return cli::main_impl(argc, argv, launch);
    }
#endif
    return cli::main_impl(argc, argv, launch);
  } catch (const cli::ScenarioError& e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (const model::ScheduleParseError& e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (const model::ScheduleMismatch& e) {
    std::fprintf(stderr, "schedule does not fit the scenario: %s\n", e.what());
  } catch (const cli::UsageError& e) {
    std::fprintf(stderr, "usage: %s\n", e.what());
  } catch (const std::exception& e) {
    // A plain std::logic_error is what lockstep or a design says cannot happen (its
    // subclasses, such as out_of_range, also report bad inputs): exit 3, docs/results.md.
    if (typeid(e) == typeid(std::logic_error)) {
      std::fprintf(stderr, "internal error (a bug in lockstep, not in the input): %s\n", e.what());
      return cli::kExitInternalError;
    }
    std::fprintf(stderr, "error: %s\n", e.what());
  }
  return cli::kExitBadInput;
}
