#include "report/result_json.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/litmus_json.hpp"
#include "report/lock_profile_json.hpp"

namespace lockstep::report {

namespace {

using Json = nlohmann::ordered_json;

// Host time varies from run to run anyway; microseconds are all a reader can use.
double rounded_seconds(double s) { return std::round(s * 1e6) / 1e6; }

void put_if(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

void put_outcome(Json& out, const RowReport& r) {
  out["result"] = r.result;
  if (r.result != "pass") {
    out["property"] = r.property;
    out["message"] = r.message;
  }
  out["expected"] = r.expected;
  out["matched"] = r.matched;
}

// A native row has no seed, simulated operations or trace: just the run and its host time.
void put_native_counts(Json& out, const RowReport& r) {
  out["strategy"] = r.strategy;
  out["executions"] = r.executions;
  out["elapsed_s"] = rounded_seconds(r.elapsed_s);
}

void put_counts(Json& out, const RowReport& r) {
  out["strategy"] = r.strategy;
  out["seed"] = r.seed;
  out["executions"] = r.executions;
  out["exhaustive"] = r.exhaustive;
  out["sim_ops"] = r.sim_ops;
  out["steps"] = r.steps;
  out["virtual_time_ns"] = r.virtual_time_ns;
  out["elapsed_s"] = rounded_seconds(r.elapsed_s);
  out["sim_ops_per_host_s"] = std::round(r.sim_ops_per_host_s);
  if (r.strategy == "timed" || r.strategy == "replay") return;
  out["pruned"] = r.pruned;
  out["max_depth"] = r.max_depth;
  out["bounds"] = r.bounds;
  if (!r.guarantee.empty()) out["guarantee"] = r.guarantee;
  out["executions_per_s"] = std::round(r.executions_per_s);
  out["workers"] = r.workers;
  if (r.ranks > 1) {
    out["ranks"] = r.ranks;
    out["remote_units"] = r.remote_units;
    if (r.remote_progress_reports > 0) out["remote_progress_reports"] = r.remote_progress_reports;
    if (r.remote_units_lent_back > 0) out["remote_units_lent_back"] = r.remote_units_lent_back;
  }
  if (r.parallel.tasks > 0) {
    const auto& p = r.parallel;
    out["parallel"] = Json{{"tasks", p.tasks},
                           {"split_on_demand", p.split_on_demand},
                           {"first_step_probes", p.probes},
                           {"idle_thread_s", rounded_seconds(p.idle_s)},
                           {"probe_thread_s", rounded_seconds(p.probe_s)}};
  }
  if (r.estimate.present) {
    const auto& e = r.estimate;
    out["estimate"] = Json{{"executions", std::round(e.executions)},
                           {"half_width", std::round(e.half_width)},
                           {"relative", e.executions > 0 ? std::round(1000 * e.half_width / e.executions) / 1000 : 0.0},
                           {"probes", e.probes},
                           {"strata", e.strata},
                           {"replays", e.replays},
                           {"elapsed_s", rounded_seconds(e.elapsed_s)}};
  }
  out["internal_errors"] = r.internal_errors;
  if (r.smt.present) {
    const auto& m = r.smt;
    out["smt"] = Json{{"memory_model", m.memory_model},
                      {"unroll", m.unroll},
                      {"complete", m.complete},
                      {"events", m.events},
                      {"queries", m.queries},
                      {"solver_s", rounded_seconds(m.solver_s)},
                      {"witness_replayed", m.witness_replayed},
                      {"outcomes", m.outcomes},
                      {"outcomes_complete", m.outcomes_complete}};
  }
  if (r.counterexample.present) {
    const auto& c = r.counterexample;
    out["counterexample"] = Json{{"preemptions", c.preemptions},
                                 {"steps", c.steps},
                                 {"minimized", c.minimized},
                                 {"fewest_preemptions_proven", c.fewest_preemptions_proven},
                                 {"fewest_steps_proven", c.fewest_steps_proven},
                                 {"found_preemptions", c.found_preemptions},
                                 {"found_steps", c.found_steps},
                                 {"minimize_executions", c.minimize_executions},
                                 {"minimize_steps", c.minimize_steps},
                                 {"minimize_stopped", c.minimize_stopped},
                                 {"interleaving", r.interleaving},
                                 {"protocol_steps", r.protocol_steps}};
  }
}

}  // namespace

// latency-probe and c2c results (docs/results.md, "Machine measurements").
void put_machine(Json& out, const MachineMeasurements& m) {
  if (!m.histogram.empty()) {
    Json bins = Json::array();
    for (const auto& b : m.histogram) bins.push_back(Json{{"lo_ns", b.lo_ns}, {"hi_ns", b.hi_ns}, {"count", b.count}});
    out["histogram"] = std::move(bins);
    Json peaks = Json::array();
    for (double p : m.peaks_ns) peaks.push_back(std::round(p * 10) / 10);
    out["peaks_ns"] = std::move(peaks);
    out["mean_ns"] = std::round(m.mean_ns * 10) / 10;
  }
  if (!m.c2c_ns.empty()) {
    out["c2c_cpus"] = m.c2c_cpus;
    Json rows = Json::array();
    for (const auto& row : m.c2c_ns) {
      Json cells = Json::array();
      for (double v : row) cells.push_back(std::round(v * 10) / 10);
      rows.push_back(std::move(cells));
    }
    out["c2c_ns"] = std::move(rows);
  }
  if (!m.ccbench.empty()) {
    out["ccbench_test"] = m.ccbench_test;
    Json rows = Json::array();
    for (const auto& row : m.ccbench)
      rows.push_back(Json{{"cpu", row.cpu},
                          {"distance", row.distance},
                          {"mean_ns", std::round(row.mean_ns * 10) / 10},
                          {"median_ns", std::round(row.median_ns * 10) / 10},
                          {"min_ns", std::round(row.min_ns * 10) / 10},
                          {"max_ns", std::round(row.max_ns * 10) / 10}});
    out["ccbench"] = std::move(rows);
  }
  if (!m.sources.empty()) {
    Json sources = Json::object();
    for (const auto& [name, count] : m.sources) sources[name] = count;
    out["sources"] = std::move(sources);
    out["writebacks"] = m.writebacks;
    if (m.dram_banks > 0) {
      out["dram_banks_touched"] = m.dram_banks_touched;
      out["dram_banks"] = m.dram_banks;
      out["dram_bank_peak_over_mean"] = std::round(m.dram_bank_peak_over_mean * 1000) / 1000;
    }
  }
}

namespace {

// A measuring workload's labels and figures (docs/results.md, "Workload results").
void put_workload(Json& out, const WorkloadMetrics& w) {
  for (const auto& [name, value] : w.labels) out[name] = value;
  for (const auto& [name, value] : w.values) out[name] = std::round(value * 1000) / 1000;
  if (!w.per_thread_name.empty()) {
    Json values = Json::array();
    for (double v : w.per_thread) values.push_back(std::round(v * 1000) / 1000);
    out[w.per_thread_name] = std::move(values);
  }
}

// Only where a machine file or the host's calibration was read, or is missing.
void put_machine_source(Json& out, const report::MachineProvenance& m) {
  if (!m.empty()) out["machine"] = machine_source_json(m);
}

void put_outputs(Json& out, const RowReport& r) {
  out["trace_sha256"] = r.trace_sha256;
  put_if(out, "trace", r.trace_path);
  put_if(out, "chrome_trace", r.chrome_trace_path);
  put_if(out, "schedule", r.schedule_path);
  put_if(out, "replay_command", r.replay_command);
}

// --lock-profile: the row's locks, worst first (docs/results.md, "Lock profile").
void put_lock_profile(Json& out, const RowReport& r) {
  if (r.lock_profile.empty()) return;
  out["lock_profile"] = lock_profile_json(r.lock_profile);
  out["lock_profile_unmatched"] = r.lock_profile_unmatched;
}

void put_row(Json& out, const RowReport& r, bool native) {
  put_outcome(out, r);
  if (native) {
    put_native_counts(out, r);
    put_machine(out, r.machine);  // ccbench natively (a probe's rows)
    put_workload(out, r.workload);
    put_lock_profile(out, r);
    if (r.litmus) out["litmus"] = litmus_json(*r.litmus);
    return;
  }
  put_counts(out, r);
  put_machine_source(out, r.machine_source);
  put_machine(out, r.machine);
  put_workload(out, r.workload);
  put_lock_profile(out, r);
  put_outputs(out, r);
}

Json params_object(const RowReport& r) {
  Json params = Json::object();
  for (const auto& [path, value] : r.params) params[path] = value;
  return params;
}

}  // namespace

Json machine_source_json(const report::MachineProvenance& m) {
  Json source{{"name", m.name}};
  put_if(source, "file", m.file);
  if (!m.calibrated_at.empty()) source["calibration"] = Json{{"host", m.calibrated_host}, {"when", m.calibrated_at}};
  put_if(source, "note", m.note);
  return source;
}

std::string machine_source_text(const report::MachineProvenance& m) {
  if (!m.calibrated_at.empty())
    return fmt::format("{}, calibrated on {} at {} ({})", m.name, m.calibrated_host, m.calibrated_at, m.file);
  if (!m.file.empty()) return fmt::format("{} ({})", m.name, m.file);
  return fmt::format("{}, uncalibrated: {}", m.name, m.note);
}

Json to_json(const ScenarioReport& report) {
  Json out;
  out["scenario"] = report.scenario;
  out["name"] = report.name;
  out["command"] = report.command;
  out["platform"] = report.platform;
  const bool native = report.platform == "native";
  if (!report.swept) {
    if (report.rows.size() != 1)
      throw std::invalid_argument(
          fmt::format("{}: an unswept scenario reports one row, not {}", report.scenario, report.rows.size()));
    // A replay of one sweep row is reported unswept; its params say which row it was.
    if (!report.rows.front().params.empty()) out["params"] = params_object(report.rows.front());
    put_row(out, report.rows.front(), native);
    return out;
  }
  out["swept"] = true;
  out["result"] = report.result();
  out["matched"] = report.matched();
  Json rows = Json::array();
  for (const RowReport& r : report.rows) {
    Json row;
    row["params"] = params_object(r);
    put_row(row, r, native);
    rows.push_back(std::move(row));
  }
  out["rows"] = std::move(rows);
  return out;
}

std::string results_json(const std::vector<ScenarioReport>& reports) {
  Json doc;
  if (reports.size() == 1) {
    doc = to_json(reports.front());
  } else {
    doc = Json::array();
    for (const ScenarioReport& r : reports) doc.push_back(to_json(r));
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace lockstep::report
