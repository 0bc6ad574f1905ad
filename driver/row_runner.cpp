#include "driver/row_runner.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/simulation.hpp"
#include "model/exploration.hpp"
#include "model/random_strategy.hpp"
#include "model/replay_strategy.hpp"
#include "model/search_estimate.hpp"
#include "sim/machine/ccbench.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/probes.hpp"
#include "sim/timed_strategy.hpp"
#include "spec/outcome.hpp"
#include "trace/interleaving.hpp"

namespace lockstep::driver {

using report::MachineMeasurements;
using report::RowReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

double seconds_since(RowRunner::Clock::time_point start) {
  return std::chrono::duration<double>(RowRunner::Clock::now() - start).count();
}

// What a machine workload measured, for the report.
void record_latencies(const sim::machine::LatencyCounts& counts, MachineMeasurements& out) {
  for (const auto& [latency, count] : counts) out.histogram.push_back({latency, latency + 1, count});
  for (const sim::machine::Peak& p : sim::machine::find_peaks(counts)) out.peaks_ns.push_back(p.centre_ns);
  double sum = 0;
  std::uint64_t n = 0;
  for (const auto& [latency, count] : counts) {
    sum += static_cast<double>(latency) * static_cast<double>(count);
    n += count;
  }
  out.mean_ns = n == 0 ? 0 : sum / static_cast<double>(n);
}

void record_sources(const sim::CostModel& costs, MachineMeasurements& out) {
  const auto* memory = dynamic_cast<const sim::machine::MemorySystem*>(&costs);
  if (memory == nullptr) return;
  for (int i = 0; i < sim::machine::kSources; ++i) {
    const std::uint64_t n = memory->source_counts()[static_cast<std::size_t>(i)];
    if (n != 0) out.sources.emplace_back(sim::machine::name_of(static_cast<sim::machine::Source>(i)), n);
  }
  out.writebacks = memory->writebacks();
  // Bank balance over the nodes whose DRAM served anything (docs/os.md, "Coloured allocation").
  const std::vector<std::uint64_t>& banks = memory->bank_accesses();
  const std::size_t per_node = memory->config().dram.banks;
  std::uint64_t total = 0;
  std::uint64_t peak = 0;
  for (std::size_t node = 0; node * per_node < banks.size(); ++node) {
    const auto first = banks.begin() + static_cast<std::ptrdiff_t>(node * per_node);
    if (std::all_of(first, first + static_cast<std::ptrdiff_t>(per_node), [](std::uint64_t n) { return n == 0; }))
      continue;
    out.dram_banks += per_node;
    for (auto it = first; it != first + static_cast<std::ptrdiff_t>(per_node); ++it) {
      out.dram_banks_touched += *it != 0 ? 1 : 0;
      total += *it;
      peak = std::max(peak, *it);
    }
  }
  if (total > 0)
    out.dram_bank_peak_over_mean =
        static_cast<double>(peak) * static_cast<double>(out.dram_banks) / static_cast<double>(total);
}

}  // namespace

std::string RowRunner::stem() const {
  std::string base = std::filesystem::path(s_.path).stem().string();
  return file_.swept ? fmt::format("{}-row{}", base, row_ + 1) : base;
}

std::string RowRunner::trace_header(const std::string& strategy, std::uint64_t execution) const {
  nlohmann::ordered_json h;
  h["scenario"] = s_.path;
  h["name"] = s_.name;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [path, value] : s_.params) params[path] = value;
  h["params"] = params;
  h["strategy"] = strategy;
  h["seed"] = seed();
  h["execution"] = execution;
  h["memory_model"] = s_.memory_model == MemoryModel::tso ? "tso" : "sc";
  h["cpus"] = s_.machine.cpus();
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (NodeId n : s_.machine.node_of_cpu) nodes.push_back(n);
  h["node_of_cpu"] = nodes;
  const std::string text = h.dump();
  return text.substr(1, text.size() - 2);  // the members, without braces
}

RowReport RowRunner::run(Command command) {
  if (s_.workload.is("c2c")) return c2c();
  if (s_.workload.is("ccbench")) return ccbench();
  if (command == Command::run || s_.strategy.kind == StrategyKind::timed) return timed();
  if (s_.strategy.kind == StrategyKind::smt) return smt();
  return explore(options_.executions.value_or(s_.strategy.executions));
}

// A timed run is one execution, run twice: untraced, which is what elapsed_s and
// sim_ops_per_host_s measure, then traced for the trace and its hash. The two must agree
// step for step (determinism is checked here, in every build).
RowReport RowRunner::timed() {
  RowReport report;
  report.strategy = "timed";
  report.seed = seed();
  sim::TimedStrategy oracle(seed());
  ProgressMeter meter(options_.progress, progress_base("timed"), &engine_);
  const auto start = Clock::now();
  const sim::ExecutionResult r = engine_.run(*workload_, oracle, nullptr, 0);
  report.elapsed_s = seconds_since(start);
  if (const auto* probe = dynamic_cast<const sim::machine::LatencyProbe*>(workload_.get()))
    record_latencies(probe->counts(), report.machine);
  record_sources(*costs_, report.machine);
  report.workload = workload_->metrics();
  if (s_.idle != sim::IdlePolicy::none) {
    // What the idle loop did (docs/os.md, "Adaptive idle"): wake-ups by the state they
    // found the CPU in, and the IPIs the hlt ones cost.
    const sim::Engine::IdleStats& idle = engine_.idle_stats();
    report.workload.labels.emplace_back("idle", std::string(sim::kIdlePolicyNames[static_cast<std::size_t>(s_.idle)]));
    report.workload.values.emplace_back("idle_wakes_spin", static_cast<double>(idle.wakes[0]));
    report.workload.values.emplace_back("idle_wakes_mwait", static_cast<double>(idle.wakes[1]));
    report.workload.values.emplace_back("idle_wakes_hlt", static_cast<double>(idle.wakes[2]));
    report.workload.values.emplace_back("ipis", static_cast<double>(idle.ipis));
    // Idle time before wake-ups by the state it was spent in; the seed: "in most cases we're
    // still idling in hlt as well, so there should be no negative effect on power".
    const auto& spent = idle.residency_ns;
    const double idle_total = static_cast<double>(spent[0] + spent[1] + spent[2]);
    report.workload.values.emplace_back("idle_us", idle_total / 1000.0);
    for (std::size_t s = 0; s < spent.size(); ++s)  // by IdleState
      report.workload.values.emplace_back(std::array{"idle_spin_share", "idle_mwait_share", "idle_hlt_share"}[s],
                                          idle_total > 0 ? static_cast<double>(spent[s]) / idle_total : 0);
  }
  if (s_.placement != sim::ThreadPlacement::pinned) {
    report.workload.labels.emplace_back("placement",
                                        std::string(sim::kPlacementNames[static_cast<std::size_t>(s_.placement)]));
    report.workload.values.emplace_back("migrations", static_cast<double>(engine_.migrations()));
    if (sim::uses_topology(s_.placement))
      report.workload.values.emplace_back("balancer_moves", static_cast<double>(engine_.balancer_moves()));
    if (s_.placement == sim::ThreadPlacement::sharing)
      report.workload.values.emplace_back("near_placements", static_cast<double>(engine_.near_placements()));
  }
  report.executions = 1;
  report.sim_ops = r.memory_ops;
  report.steps = r.steps;
  report.virtual_time_ns = r.virtual_time_ns;
  report.sim_ops_per_host_s = report.elapsed_s > 0 ? static_cast<double>(report.sim_ops) / report.elapsed_s : 0;
  const auto violation = checked_violation(s_, r);
  if (violation) {
    report.result = "violation";
    report.property = violation->property;
    report.message = violation->message;
    write_schedule(report, {}, sim::EngineMode::timed, 0, "timed");
  } else {
    report.result = "pass";
  }
  meter.set_phase("traced re-run");
  sim::TraceRecorder trace(trace_header("timed", 0));
  TraceOutput output = trace_output();
  output.attach(trace);
  // Locks are profiled on the re-run, whose host time nobody measures; the notes cost the
  // simulated machine nothing either way.
  profile::LockProfiler profiler;
  struct Profiling {
    sim::Engine& engine;
    ~Profiling() { engine.profile_locks(nullptr); }
  } profiling{engine_};
  if (options_.lock_profile) engine_.profile_locks(&profiler);
  const sim::ExecutionResult again = engine_.run(*workload_, oracle, &trace, 0);
  if (options_.lock_profile) {
    const trace::AddressNames names = engine_.memory().names();
    report.lock_profile = profiler.profile([&names](std::uint64_t addr) { return names.name_of(addr); });
    report.lock_profile_unmatched = profiler.unmatched();
  }
  if (again.steps != r.steps || again.virtual_time_ns != r.virtual_time_ns)
    throw std::logic_error(fmt::format("{}: the traced re-run of a timed execution diverged ({} vs {} steps)", s_.path,
                                       again.steps, r.steps));
  record_trace(report, trace, output);
  return report;
}

// The c2c matrix: one timed execution per pair of CPUs. The trace is the first pair's.
RowReport RowRunner::c2c() {
  RowReport report;
  report.strategy = "timed";
  report.seed = seed();
  ProgressMeter meter(options_.progress, progress_base("timed"), &engine_);
  const auto start = Clock::now();
  std::vector<int> core_of_cpu;
  if (s_.machine.model) {
    const sim::machine::Topology topology(*s_.machine.model);
    for (CpuId cpu = 0; cpu < topology.cpus(); ++cpu) core_of_cpu.push_back(topology.core_of(cpu));
  } else {
    for (CpuId cpu = 0; cpu < s_.machine.cpus(); ++cpu) core_of_cpu.push_back(cpu);
  }
  sim::TraceRecorder trace(trace_header("timed", 0));
  TraceOutput output = trace_output();
  output.attach(trace);
  const sim::machine::C2cResult r =
      sim::machine::run_c2c(engine_, s_.workload.get<sim::machine::C2cParams>(), core_of_cpu, seed(), &trace);
  report.elapsed_s = seconds_since(start);
  report.executions = r.executions;
  report.sim_ops = r.memory_ops;
  report.result = "pass";
  report.machine.c2c_cpus = r.cpus;
  report.machine.c2c_ns = r.one_way_ns;
  report.sim_ops_per_host_s = report.elapsed_s > 0 ? static_cast<double>(report.sim_ops) / report.elapsed_s : 0;
  record_trace(report, trace, output);  // the first pair's execution
  return report;
}

// ccbench: one timed execution per measuring CPU, each row labelled with its distance from the
// line's first holder.
RowReport RowRunner::ccbench() {
  namespace mc = sim::machine;
  RowReport report;
  report.strategy = "timed";
  report.seed = seed();
  ProgressMeter meter(options_.progress, progress_base("timed"), &engine_);
  const auto start = Clock::now();
  const auto& params = s_.workload.get<mc::CcbenchParams>();
  sim::TraceRecorder trace(trace_header("timed", 0));
  TraceOutput output = trace_output();
  output.attach(trace);
  const mc::CcbenchResult r = mc::run_ccbench(engine_, params, seed(), &trace);
  std::optional<mc::Topology> topology;
  if (s_.machine.model) topology.emplace(*s_.machine.model);
  const CpuId from = params.holders.empty() ? -1 : params.holders.front();
  const auto distance = [&](CpuId cpu) -> std::string {
    if (!topology || from < 0) return "-";
    if (topology->core_of(cpu) == topology->core_of(from)) return "same core";
    const int hops = topology->hops(topology->package_of(from), topology->package_of(cpu));
    return hops == 0 ? "same package" : fmt::format("{} hop{}", hops, hops == 1 ? "" : "s");
  };
  report.machine.ccbench_test = fmt::format("{} on {}", mc::name_of(params.op), mc::name_of(params.state));
  for (const mc::CcbenchRow& row : r.rows)
    report.machine.ccbench.push_back({row.cpu, distance(row.cpu), row.mean_ns, row.median_ns, row.min_ns, row.max_ns});
  report.elapsed_s = seconds_since(start);
  report.executions = r.executions;
  report.sim_ops = r.memory_ops;
  report.result = "pass";
  report.sim_ops_per_host_s = report.elapsed_s > 0 ? static_cast<double>(report.sim_ops) / report.elapsed_s : 0;
  record_trace(report, trace, output);  // the first measuring CPU's execution
  return report;
}

RowReport RowRunner::explore(std::uint64_t max_runs) {
  RowReport report;
  report.seed = seed();
  ProgressSnapshot base = progress_base(name_of(s_.strategy.kind));
  const bool sampling = s_.strategy.kind == StrategyKind::random || s_.strategy.kind == StrategyKind::pct;
  (sampling ? base.planned : base.cap) = max_runs;
  ProgressMeter meter(options_.progress, std::move(base));
  const auto start = Clock::now();
  if (s_.strategy.kind == StrategyKind::dfs && (options_.estimate_probes > 0 || options_.estimate_only)) {
    // Stratified probes of the search's tree (model/search_estimate.hpp): a fixed number and
    // budget, so the estimate is part of the deterministic result; --estimate stops here.
    SimExecutor probing(engine_, *workload_);
    model::EstimateOptions eo;
    eo.probes = std::max<std::uint64_t>(options_.estimate_probes, 2);
    eo.seed = seed();
    eo.strata = options_.estimate_strata;
    // Before a search, a fortieth of --estimate's budget: a search of seconds is not held up
    // by more than a fraction of a second.
    if (!options_.estimate_only) {
      eo.steps_per_probe /= 40;
      eo.first_strata = 256;
    }
    const model::SearchEstimate e = model::estimate_search(probing, eo);
    report.estimate = {true, e.probes, e.executions, e.half_width, e.strata, e.replays, e.seconds};
    meter.set_estimate(e.executions, e.half_width);
    if (options_.estimate_only) {
      report.strategy = "dfs";
      report.result = "estimate";
      report.elapsed_s = seconds_since(start);
      return report;
    }
  }
  SimExecutor main(engine_, *workload_, meter.executions());
  model::ExplorationSetup setup;
  setup.strategy = s_.strategy;
  setup.seed = seed();
  setup.max_runs = max_runs;
  setup.workers = options_.workers.value_or(s_.strategy.workers);
  setup.split_levels = options_.split_levels;
  setup.min_piece_runs = options_.min_piece_runs;
  setup.executor = &main;
  setup.make_executor = [this, runs = meter.executions()] { return std::make_unique<OwnedSimExecutor>(s_, runs); };
  setup.verdict = [this](const sim::ExecutionResult& r) { return checked_violation(s_, r); };
  setup.remote = options_.lanes != nullptr ? options_.lanes->for_row(file_, row_) : nullptr;
  model::CheckpointPolicy checkpoint;
  if (options_.checkpoints.any()) {
    // The exploring searches, on any number of workers and ranks (model/checkpoint.hpp): not
    // naive (the reference enumerator stays one plain loop), smt (one solver call) or a replay.
    const StrategyKind k = s_.strategy.kind;
    if (k != StrategyKind::dfs && k != StrategyKind::bounded && k != StrategyKind::random && k != StrategyKind::pct)
      throw std::runtime_error(
          "--checkpoint and --resume take a dfs, bounded, random or pct search "
          "(docs/distributed.md, \"Checkpoints\")");
    checkpoint = checkpoint_policy(options_.checkpoints, file_, row_, max_runs);
    setup.checkpoint = &checkpoint;
  }
  // The violation as found is written before minimization; the minimized one replaces it.
  setup.on_found = [this](const model::SearchOutcome& found) {
    RowReport unminimized;
    unminimized.property = found.violation->property;
    write_schedule(unminimized, found.schedule, sim::EngineMode::explore, found.violating_index,
                   name_of(s_.strategy.kind));
  };
  const model::Exploration e = model::explore(setup);  // the search, then minimization
  const model::SearchOutcome& o = e.outcome;
  meter.set_phase("traced re-run");
  report.elapsed_s = seconds_since(start);
  report.strategy = e.strategy;
  report.executions = o.executions;
  report.pruned = o.pruned;
  report.max_depth = o.max_depth;
  report.exhaustive = o.exhaustive;
  report.sim_ops = o.sim_ops;
  report.bounds = e.bounds;
  report.guarantee = e.guarantee;
  report.workers = e.workers;
  if (setup.remote != nullptr) {
    report.ranks = static_cast<unsigned>(setup.remote->size() + 1);
    report.remote_units = setup.remote->units();
    report.remote_progress_reports = setup.remote->progress_reports();
    report.remote_units_lent_back = setup.remote->units_lent_back();
  }
  report.internal_errors = o.internal_errors;
  report.parallel = {o.parallel.tasks, o.parallel.split_on_demand, o.parallel.probes, o.parallel.idle_s,
                     o.parallel.probe_s};
  report.executions_per_s = e.search_s > 0 ? static_cast<double>(o.executions + o.pruned) / e.search_s : 0;

  if (!o.violation) {
    report.result = "pass";
    // The trace of a pass is a random execution, unless that one violates a property: a
    // search stopped by its cap may not have met it (`--executions 1`). Then it is the
    // search's own first execution, which passed.
    model::RandomStrategy random(seed());
    const bool random_passes = !checked_violation(s_, engine_.run(*workload_, random, nullptr, 0));
    if (random_passes) {
      model::RandomStrategy oracle(seed());
      finish(report, oracle, 0, std::nullopt);
    } else {
      const auto first = e.make_strategy();
      finish(report, *first, 0, std::nullopt);
    }
    return report;
  }
  const model::Counterexample& c = *e.counterexample;
  report.result = "violation";
  report.property = o.violation->property;
  report.message = o.violation->message;
  auto& ce = report.counterexample;
  ce.present = true;
  ce.preemptions = c.preemptions;
  ce.steps = c.steps;
  ce.minimized = s_.strategy.minimize;
  ce.fewest_preemptions_proven = c.fewest_preemptions_proven;
  ce.fewest_steps_proven = c.fewest_steps_proven;
  ce.found_preemptions = e.found_preemptions;
  ce.found_steps = o.violating_steps;
  ce.minimize_executions = c.executions;
  ce.minimize_steps = c.steps_spent;
  ce.minimize_stopped = c.stopped;
  write_schedule(report, c.schedule, sim::EngineMode::explore, o.violating_index, e.strategy);
  // The reported trace comes from replaying the schedule: every counterexample is checked
  // to replay before it is shown. Its message is the replayed one (minimization may have
  // found a shorter way to the same property).
  model::ReplayStrategy replay(c.schedule, sim::EngineMode::explore);
  finish(report, replay, o.violating_index, o.violation);
  return report;
}

// Runs the reported execution again with a trace, checks it agrees, writes trace outputs.
void RowRunner::finish(RowReport& report, sim::Scheduler& oracle, std::uint64_t execution,
                       const std::optional<sim::Violation>& expected_violation) {
  sim::TraceRecorder trace(trace_header(report.strategy, execution));
  TraceOutput output = trace_output();
  output.attach(trace);
  const sim::ExecutionResult r = engine_.run(*workload_, oracle, &trace, execution);
  const auto violation = checked_violation(s_, r);
  const bool agrees =
      expected_violation ? (violation && violation->property == expected_violation->property) : !violation;
  if (!agrees)
    throw std::logic_error(
        fmt::format("{}: the traced re-run of execution {} did not reproduce its outcome", s_.path, execution));
  if (violation) {
    report.message = violation->message;
    if (trace.whole_text_kept()) {
      const trace::Interleaving view = trace::read_interleaving(trace.text());
      report.interleaving = view.raw;
      if (view.has_protocol_steps) {  // else the raw steps say it all
        report.protocol_steps = trace::format_protocol_steps(view, false);
        report.protocol_steps_verbose = trace::format_protocol_steps(view, true);
      }
    }
  }
  report.steps = r.steps;
  report.virtual_time_ns = r.virtual_time_ns;
  record_trace(report, trace, output);
}

// --trace and --chrome-trace name files for a single row; --save-traces puts every row's
// traces in the output directory.
TraceOutput RowRunner::trace_output() const {
  std::string trace_path = options_.trace_path;
  std::string chrome_path = options_.chrome_trace_path;
  std::uint64_t limit = 0;  // what --trace names is kept whole
  if (options_.save_traces) {
    if (trace_path.empty()) {
      trace_path = fmt::format("{}/{}.trace.jsonl", options_.out_dir, stem());
      limit = options_.save_traces_limit_mib << 20;
    }
    if (chrome_path.empty()) chrome_path = fmt::format("{}/{}.chrome.json", options_.out_dir, stem());
  }
  return TraceOutput(std::move(trace_path), std::move(chrome_path), limit);
}

void RowRunner::record_trace(RowReport& report, sim::TraceRecorder& trace, TraceOutput& output) const {
  const TraceOutput::Written written = output.finish(trace);
  report.trace_sha256 = written.sha256;
  report.trace_path = written.trace_path;
  report.chrome_trace_path = written.chrome_trace_path;
}

void RowRunner::write_schedule(RowReport& report, const sim::Schedule& schedule, sim::EngineMode mode,
                               std::uint64_t execution, const std::string& strategy) {
  model::ScheduleFile file;
  file.scenario = s_.path;
  file.scenario_sha256 = file_.sha256;
  file.params = s_.params;
  file.seed = seed();
  file.mode = mode;
  file.strategy = strategy;
  file.execution = execution;
  file.property = report.property;
  file.choices = schedule;
  report.schedule_path = fmt::format("{}/{}.schedule", options_.out_dir, stem());
  io::write_file_atomically(report.schedule_path, model::format_schedule(file));
  report.replay_command = fmt::format("lockstep replay {}", report.schedule_path);
}

ProgressSnapshot RowRunner::progress_base(std::string strategy) const {
  ProgressSnapshot base;
  base.scenario = s_.name;
  base.row = row_;
  base.rows = file_.rows.size();
  base.strategy = std::move(strategy);
  return base;
}

RowReport RowRunner::replay(const model::ScheduleFile& schedule) {
  RowReport report;
  report.strategy = "replay";
  report.seed = schedule.seed;
  const auto start = Clock::now();
  std::unique_ptr<sim::Scheduler> oracle;
  if (schedule.mode == sim::EngineMode::timed) {
    oracle = std::make_unique<sim::TimedStrategy>(schedule.seed);
  } else {
    oracle = std::make_unique<model::ReplayStrategy>(schedule.choices, sim::EngineMode::explore);
  }
  sim::TraceRecorder trace(trace_header(schedule.strategy, schedule.execution));
  TraceOutput output = trace_output();
  output.attach(trace);
  const sim::ExecutionResult r = engine_.run(*workload_, *oracle, &trace, schedule.execution);
  if (auto* replay = dynamic_cast<model::ReplayStrategy*>(oracle.get()); replay != nullptr && !replay->consumed())
    throw model::ScheduleMismatch("the execution ended before the schedule did: it does not fit this scenario");
  report.elapsed_s = seconds_since(start);
  report.executions = 1;
  report.sim_ops = r.memory_ops;
  report.steps = r.steps;
  report.virtual_time_ns = r.virtual_time_ns;
  const auto violation = checked_violation(s_, r);
  report.result = violation ? "violation" : "pass";
  if (violation) {
    report.property = violation->property;
    report.message = violation->message;
  }
  record_trace(report, trace, output);
  return report;
}

}  // namespace lockstep::driver
