#include "driver/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "driver/c2c_means.hpp"
#include "driver/native_ccbench.hpp"
#include "driver/native_runner.hpp"
#include "driver/runner.hpp"
#include "driver/workload_bindings.hpp"
#include "measure/latency_summary.hpp"
#include "native/probes/c2c_probe.hpp"
#include "native/probes/memory_probe.hpp"
#include "report/workload_figures.hpp"
#include "sim/machine/host_topology.hpp"
#include "sim/machine/probes.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::RowReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

// The figures a workload measures that compare holds, as opposed to the parameters it echoes
// (threads, rounds): report/workload_figures.hpp's `compared`.
bool is_measured(std::string_view name) {
  const report::FigureInfo* f = report::find_figure(name);
  return f != nullptr && f->compared && f->kind != report::FigureKind::per_thread;
}

// A row's figures by name: the measured values, each thread's (or pair's) rate as NAME[i],
// and for a workload that measures nothing itself (lock-counter) the run's duration.
std::vector<std::pair<std::string, double>> figures_of(const RowReport& r, bool native) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, value] : r.workload.values)
    if (is_measured(name)) out.emplace_back(name, value);
  for (std::size_t i = 0; i < r.workload.per_thread.size(); ++i)
    out.emplace_back(fmt::format("{}[{}]", r.workload.per_thread_name, i), r.workload.per_thread[i]);
  if (out.empty()) out.emplace_back("run_ns", native ? r.elapsed_s * 1e9 : static_cast<double>(r.virtual_time_ns));
  return out;
}

void summarise(MetricComparison& m) {
  if (m.native.empty()) return;
  m.native_median = measure::summarize(m.native).median_ns;
  m.native_min = *std::min_element(m.native.begin(), m.native.end());
  m.native_max = *std::max_element(m.native.begin(), m.native.end());
}

std::string base_name(const std::string& metric) { return metric.substr(0, metric.find('[')); }

Params without_designs(const Params& params) {
  Params out;
  for (const auto& p : params)
    if (!p.first.starts_with("design.")) out.push_back(p);
  return out;
}

const MetricComparison* find_metric(const CompareRow& row, std::string_view name) {
  for (const MetricComparison& m : row.metrics)
    if (m.metric == name) return &m;
  return nullptr;
}

// For each row of a design sweep, its headline figures over its baseline's: the first row
// whose other sweep values are the same. Natively the ratio is taken repetition by
// repetition (repetition i of the row over repetition i of the baseline).
std::vector<RatioComparison> design_ratios(const std::vector<CompareRow>& rows) {
  std::vector<RatioComparison> out;
  std::map<Params, std::size_t> baseline_of;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool varies_design = std::any_of(rows[i].params.begin(), rows[i].params.end(),
                                           [](const auto& p) { return p.first.starts_with("design."); });
    if (!varies_design) continue;
    const auto [at, first] = baseline_of.try_emplace(without_designs(rows[i].params), i);
    if (first) continue;
    const CompareRow& base = rows[at->second];
    for (const report::FigureInfo& figure : report::workload_figures()) {
      if (!figure.ratio) continue;
      const std::string_view headline = figure.name;
      const MetricComparison* row_m = find_metric(rows[i], headline);
      const MetricComparison* base_m = find_metric(base, headline);
      if (row_m == nullptr || base_m == nullptr || !row_m->simulated || !base_m->simulated) continue;
      RatioComparison r{rows[i].params, base.params, {}};
      r.ratio.metric = std::string(headline) + "_ratio";
      for (std::size_t k = 0; k < std::min(row_m->native.size(), base_m->native.size()); ++k)
        if (base_m->native[k] != 0) r.ratio.native.push_back(row_m->native[k] / base_m->native[k]);
      if (r.ratio.native.empty() || *base_m->simulated == 0) continue;
      r.ratio.simulated = *row_m->simulated / *base_m->simulated;
      summarise(r.ratio);
      out.push_back(std::move(r));
    }
  }
  return out;
}

struct ToleranceUse {
  const FidelityTolerance* tolerance;
  bool used = false;
};

void judge_metric(MetricComparison& m, std::vector<ToleranceUse>& tolerances, bool ratio) {
  if (!m.simulated) return;
  const double native = m.native_median;
  m.error_pct = native == 0 ? (*m.simulated == 0 ? 0 : std::numeric_limits<double>::infinity())
                            : (*m.simulated - native) / std::abs(native) * 100;
  // The most specific tolerance: the figure's own name, then its family (NAME[i] -> NAME),
  // then, for ratios, `ratios`.
  const std::string family = base_name(m.metric);
  for (const std::string& name : {m.metric, family, std::string(ratio ? "ratios" : "")}) {
    if (name.empty()) continue;
    const auto it = std::find_if(tolerances.begin(), tolerances.end(),
                                 [&name](const ToleranceUse& t) { return t.tolerance->metric == name; });
    if (it == tolerances.end()) continue;
    it->used = true;
    m.tolerance_pct = it->tolerance->percent;
    m.within = std::abs(m.error_pct) <= it->tolerance->percent;
    return;
  }
}

// The machine workloads, which compare against the native probes rather than run natively.
bool is_probe(const Scenario& s) {
  return s.workload.is("latency-probe") || s.workload.is("c2c") || s.workload.is("ccbench");
}

RowReport run_native_once(const Scenario& s) {
  RowReport r = binding_of(s.workload).native(s);
  r.params = s.params;
  judge(r, s);
  return r;
}

// latency-probe against the native memory probe at the same size: the simulator's mean per
// access and the native probe's median batch of 256 dependent loads are the same quantity
// (a batch averages its loads). Natively the buffer is bound to one node at a time.
CompareRow compare_latency_probe(const Scenario& s, const RowReport& sim, const CompareOptions& options) {
  const auto& p = s.workload.get<sim::machine::LatencyProbeParams>();
  CompareRow row;
  row.params = s.params;
  row.native_result = "pass";
  if (p.placement.interleave && s.machine.model && s.machine.model->packages > 1)
    row.note = "natively the buffer is on one node (the probe binds one at a time), not interleaved";
  MetricComparison mean;
  mean.metric = "mean_ns";
  for (int rep = 0; rep < options.repetitions; ++rep) {
    const native::probes::ProbeLimits limits{options.probe_seconds, {}};
    const native::probes::MemoryProbeResult r =
        native::probes::memory_probe_one(p.bytes, limits, p.placement.interleave ? -1 : p.placement.node);
    if (r.sizes.empty())
      throw std::runtime_error(fmt::format("the native memory probe measured nothing at {} bytes", p.bytes));
    mean.native.push_back(r.sizes.front().latency.median_ns);
  }
  if (sim.machine.mean_ns > 0) mean.simulated = sim.machine.mean_ns;
  summarise(mean);
  row.metrics.push_back(std::move(mean));
  return row;
}

// c2c against the native CAS ping-pong: the mean one-way latency over pairs of cores in one
// package, and across packages, each side placing its CPUs by its own topology.
CompareRow compare_c2c(const Scenario& s, const RowReport& sim, const CompareOptions& options) {
  CompareRow row;
  row.params = s.params;
  row.native_result = "pass";
  const sim::machine::HostTopology host = sim::machine::read_host_topology();
  const std::map<int, CpuPlace> at = host_places(host);
  const auto host_place = [&at](int cpu) {
    const auto it = at.find(cpu);
    return it == at.end() ? CpuPlace{} : it->second;
  };
  MetricComparison same;
  same.metric = "c2c_same_package_ns";
  MetricComparison cross;
  cross.metric = "c2c_cross_package_ns";
  for (int rep = 0; rep < options.repetitions; ++rep) {
    native::probes::C2cProbeOptions o;
    o.limits = {options.probe_seconds, {}};
    const native::probes::C2cProbeResult r = native::probes::c2c_probe(o);
    const C2cMeans m = c2c_means(r.cpus, r.one_way_ns, host_place);
    if (m.same_pairs > 0) same.native.push_back(m.same_package);
    if (m.cross_pairs > 0) cross.native.push_back(m.cross_package);
  }
  if (s.machine.model) {
    const C2cMeans m = c2c_means(sim.machine.c2c_cpus, sim.machine.c2c_ns,
                                 [&s](int cpu) { return model_place(*s.machine.model, cpu); });
    if (m.same_pairs > 0) same.simulated = m.same_package;
    if (m.cross_pairs > 0) cross.simulated = m.cross_package;
  }
  for (MetricComparison* m : {&same, &cross}) {
    if (m->native.empty()) continue;
    summarise(*m);
    row.metrics.push_back(std::move(*m));
  }
  if (row.metrics.empty()) row.note = "this host has no two cores to measure";
  return row;
}

// ccbench against the native ccbench probe, measuring CPU by measuring CPU (the scenario's
// CPUs are this host's on both sides): the median over the repetitions, which on the host
// an interrupt cannot move as it moves the mean.
CompareRow compare_ccbench(const Scenario& s, const RowReport& sim, const CompareOptions& options) {
  CompareRow row;
  row.params = s.params;
  row.native_result = "pass";
  std::vector<MetricComparison> metrics;
  for (const auto& r : sim.machine.ccbench) {
    MetricComparison m;
    m.metric = fmt::format("ccbench_ns[{}]", r.cpu);
    m.simulated = r.median_ns;
    metrics.push_back(std::move(m));
  }
  for (int rep = 0; rep < options.repetitions; ++rep) {
    const RowReport native = run_native_ccbench(s);
    if (native.machine.ccbench.size() != metrics.size())
      throw std::logic_error("compare: the native ccbench measured other CPUs than the simulated one");
    for (std::size_t i = 0; i < metrics.size(); ++i) metrics[i].native.push_back(native.machine.ccbench[i].median_ns);
  }
  for (MetricComparison& m : metrics) {
    summarise(m);
    row.metrics.push_back(std::move(m));
  }
  return row;
}

}  // namespace

bool CompareReport::passed() const {
  for (const CompareRow& r : rows) {
    if (r.native_result != "pass") return false;
    for (const MetricComparison& m : r.metrics)
      if (!m.within) return false;
  }
  return std::all_of(ratios.begin(), ratios.end(), [](const RatioComparison& r) { return r.ratio.within; });
}

void judge_fidelity(CompareReport& report, const std::vector<FidelityTolerance>& tolerances) {
  std::vector<ToleranceUse> uses;
  for (const FidelityTolerance& t : tolerances) uses.push_back({&t});
  for (CompareRow& row : report.rows)
    for (MetricComparison& m : row.metrics) judge_metric(m, uses, false);
  report.ratios = design_ratios(report.rows);
  for (RatioComparison& r : report.ratios) judge_metric(r.ratio, uses, true);
  // A tolerance must name a figure there is (a typo would otherwise bound nothing); one that a
  // more specific tolerance shadows everywhere is still a name that exists.
  std::vector<std::string> names;
  const auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const CompareRow& row : report.rows)
    for (const MetricComparison& m : row.metrics)
      if (m.simulated) {
        add(m.metric);
        add(base_name(m.metric));
      }
  for (const RatioComparison& r : report.ratios) add(r.ratio.metric);
  if (!report.ratios.empty()) add("ratios");
  for (const ToleranceUse& u : uses) {
    if (u.used || std::find(names.begin(), names.end(), u.tolerance->metric) != names.end()) continue;
    std::vector<std::string> families;
    for (const std::string& n : names)
      if (n.find('[') == std::string::npos) families.push_back(n);
    throw ScenarioError(fmt::format("{}: fidelity: '{}' is not a figure this comparison has (it has: {})",
                                    u.tolerance->where, u.tolerance->metric, fmt::join(families, ", ")));
  }
}

// The machine both sides run on, as the native side sees it. Natively the designs run as
// user-space code (a table is a parking lot there, a file policy's locks are ours): the only
// system calls are the parker's, a FUTEX_WAIT to sleep and a FUTEX_WAKE to wake a sleeper.
// So the simulated side charges no entry or exit around the designs' calls, and an unpark
// costs the whole FUTEX_WAKE: the calibrated unpark_ns (the kernel's waking) plus a call's
// entry and exit.
static std::string native_machine(const std::string& path, const CompareOptions& options) {
  const std::string base = options.machine_file.empty()
                               ? std::string("preset: host")
                               : fmt::format("file: \"{}\"", std::filesystem::absolute(options.machine_file).string());
  const ScenarioFile as_is = load_scenario_file_on(path, fmt::format("{{{}}}", base));
  if (as_is.rows.empty()) return fmt::format("{{{}, syscall_entry_ns: 0, syscall_exit_ns: 0}}", base);
  const sim::FlatCosts& os = as_is.rows.front().machine.costs;
  const auto& work = os.work_ns;
  const std::uint64_t unpark = os.unpark_ns + work[static_cast<std::size_t>(Work::syscall_entry)] +
                               work[static_cast<std::size_t>(Work::syscall_exit)];
  return fmt::format("{{{}, syscall_entry_ns: 0, syscall_exit_ns: 0, unpark_ns: {}}}", base, unpark);
}

CompareReport compare_scenario(const std::string& path, const CompareOptions& options) {
  const std::string machine = native_machine(path, options);
  const ScenarioFile file = load_scenario_file_on(path, machine, options.sim_runtime_cap_us);
  // The native runs take the scenario's own window.
  const ScenarioFile native_file = load_scenario_file_on(path, machine, 0, options.native_runtime_floor_us);
  CompareReport report;
  report.scenario = path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.swept = file.swept;
  report.repetitions = options.repetitions;
  report.sim_runtime_cap_us = options.sim_runtime_cap_us;
  report.native_runtime_floor_us = options.native_runtime_floor_us;
  for (const Scenario& s : file.rows) {
    const WorkloadBinding& kind = binding_of(s.workload);
    if (is_probe(s)) continue;
    if (kind.native == nullptr) {
      throw ScenarioError(
          fmt::format("{}: the {} workload has no native form to compare with (compare runs: "
                      "futex-hash, futex-pingpong, futex-wake, futex-requeue, lock-counter, "
                      "counter-sharing, fileio, ccbench, and latency-probe and c2c against the native probes)",
                      s.path, s.workload.is("program") ? "thread-program" : s.workload.name()));
    }
    if (kind.check_native != nullptr) kind.check_native(s);
  }
  RunOptions sim_options;
  sim_options.command = Command::run;
  sim_options.seed = options.seed;
  sim_options.lock_profile = options.lock_profile;
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    const Scenario& s = file.rows[i];
    if (is_probe(s)) {
      const RowReport sim = run_scenario_row(file, i, sim_options);
      if (report.machine.empty()) report.machine = sim.machine_source;
      if (s.workload.is("c2c")) {
        report.rows.push_back(compare_c2c(s, sim, options));
      } else if (s.workload.is("ccbench")) {
        report.rows.push_back(compare_ccbench(s, sim, options));
      } else {
        report.rows.push_back(compare_latency_probe(s, sim, options));
      }
      continue;
    }
    CompareRow row;
    row.params = s.params;
    std::vector<std::pair<std::string, double>> simulated;
    try {
      require_simulable(s);
      const RowReport sim = run_scenario_row(file, i, sim_options);
      if (report.machine.empty()) report.machine = sim.machine_source;
      if (sim.result != "pass") {
        row.note = fmt::format("the simulation found {}: {}", sim.outcome(), sim.message);
      } else {
        simulated = figures_of(sim, false);
      }
      row.simulated_locks = sim.lock_profile;
    } catch (const ScenarioError&) {
      // A host futex (kernel, std-atomic-wait) exists only natively: its figures stand alone.
      row.note = "native only: this design exists only on the host";
    }
    row.native_result = "pass";
    std::vector<std::vector<std::pair<std::string, double>>> native_runs;
    for (int rep = 0; rep < options.repetitions; ++rep) {
      const RowReport native = run_native_once(native_file.rows[i]);
      if (native.result != "pass" && row.native_result == "pass")
        row.native_result = fmt::format("{}: {}", native.outcome(), native.message);
      native_runs.push_back(figures_of(native, true));
    }
    if (options.lock_profile) row.native_locks = run_native_row_profiled(native_file.rows[i]).lock_profile;
    // Every figure the native runs report, in their order, with the simulated one beside it.
    for (const auto& [name, value] : native_runs.front()) {
      MetricComparison m;
      m.metric = name;
      for (const auto& run : native_runs)
        for (const auto& [n, v] : run)
          if (n == name) m.native.push_back(v);
      for (const auto& [n, v] : simulated)
        if (n == name) m.simulated = v;
      summarise(m);
      row.metrics.push_back(std::move(m));
    }
    report.rows.push_back(std::move(row));
  }
  const std::vector<FidelityTolerance>& tolerances =
      file.rows.empty() ? std::vector<FidelityTolerance>{} : file.rows.front().expect.fidelity;
  judge_fidelity(report, tolerances);
  return report;
}

}  // namespace lockstep::driver
