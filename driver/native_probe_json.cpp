// The machine probes' JSON (docs/results.md, "Machine probes"): what ran and how it was
// timed, then the figures in the simulator's shape (put_machine's histogram, peaks_ns,
// c2c_cpus and c2c_ns).
#include <cmath>

#include "driver/native_probes.hpp"
#include "report/result_json.hpp"

namespace lockstep::driver {

namespace {

using Json = nlohmann::ordered_json;
namespace np = native::probes;

double hundredths(double v) { return std::round(v * 100) / 100; }

// What every probe's JSON opens with.
Json header(const char* probe, const np::ClockInfo& clock) {
  Json out;
  out["probe"] = probe;
  out["platform"] = "native";
  out["command"] = std::string("native probe ") + probe;
  out["clock"] = clock.description();
  if (clock.tsc) out["clock_calibration_s"] = clock.calibration_s;
  return out;
}

void put_run(Json& out, double seconds, double elapsed_s, bool interrupted, const std::vector<std::string>& notes) {
  out["seconds"] = seconds;
  out["elapsed_s"] = std::round(elapsed_s * 1e6) / 1e6;
  out["interrupted"] = interrupted;
  out["notes"] = notes;
}

void put_summary(Json& out, const measure::LatencySummary& s) {
  out["samples"] = s.samples;
  out["median_ns"] = hundredths(s.median_ns);
  out["mean_ns"] = hundredths(s.mean_ns);
  out["p10_ns"] = hundredths(s.p10_ns);
  out["p90_ns"] = hundredths(s.p90_ns);
}

Json size_row(const np::MemorySizeResult& s) {
  Json row;
  row["params"] = Json{{"bytes", s.bytes}, {"node", s.node}};
  put_summary(row, s.latency);
  row["accesses"] = s.accesses;
  report::MachineMeasurements m;
  for (const auto& b : s.histogram) m.histogram.push_back({b.lo_ns, b.hi_ns, b.count});
  m.peaks_ns = s.peaks_ns;
  m.mean_ns = s.latency.mean_ns;  // put_machine writes it again, rounded as the simulator's
  put_machine(row, m);
  return row;
}

Json figure(const np::FutexFigure& f) {
  Json out;
  out["measured"] = f.measured;
  if (f.measured) put_summary(out, f.latency);
  if (f.not_asleep != 0) out["not_asleep"] = f.not_asleep;
  if (!f.note.empty()) out["note"] = f.note;
  return out;
}

}  // namespace

Json memory_probe_json(const np::MemoryProbeResult& r) {
  Json out = header("memory", r.clock);
  out["clock_overhead_ns"] = hundredths(r.clock_overhead_ns);
  out["batch_loads"] = np::kBatchLoads;
  out["cpu"] = r.cpu;
  out["numa_nodes"] = r.numa_nodes;
  out["llc_bytes"] = r.llc.bytes;
  out["llc_known"] = r.llc.known;
  Json buffers = Json::array();
  for (const np::MemoryBuffer& b : r.buffers)
    buffers.push_back(Json{{"node", b.node},
                           {"bytes", b.bytes},
                           {"requested", b.huge_pages_requested},
                           {"anon_huge_bytes", b.anon_huge_bytes}});
  out["huge_pages"] = Json{{"thp", r.thp_mode.empty() ? "none" : r.thp_mode}, {"buffers", std::move(buffers)}};
  put_run(out, r.seconds, r.elapsed_s, r.interrupted, r.notes);
  out["swept"] = true;
  Json rows = Json::array();
  for (const np::MemorySizeResult& s : r.sizes) rows.push_back(size_row(s));
  out["rows"] = std::move(rows);
  return out;
}

Json c2c_probe_json(const np::C2cProbeResult& r) {
  Json out = header("c2c", r.clock);
  out["allowed_cpus"] = r.allowed_cpus;
  out["cpu_step"] = r.cpu_step;
  out["rounds_per_batch"] = r.rounds_per_batch;
  out["own_line_rmw_ns"] = hundredths(r.own_line_rmw_ns);
  out["fence_ns"] = hundredths(r.fence_ns);
  out["pause_ns"] = hundredths(r.pause_ns);
  out["adds_per_handover"] = hundredths(r.adds_per_handover);
  out["writer_reread_ns"] = hundredths(r.writer_reread_ns);
  out["one_way_iqr_ns"] = hundredths(r.one_way_iqr_ns);
  put_run(out, r.seconds, r.elapsed_s, r.interrupted, r.notes);
  report::MachineMeasurements m;
  m.c2c_cpus = r.cpus;
  m.c2c_ns = r.one_way_ns;
  put_machine(out, m);
  if (!r.batches.empty()) out["c2c_batches"] = r.batches;
  return out;
}

Json futex_probe_json(const np::FutexProbeResult& r) {
  Json out = header("futex", r.clock);
  out["clock_overhead_ns"] = hundredths(r.clock_overhead_ns);
  out["cpus"] = Json::array({r.cpu_a, r.cpu_b});
  put_run(out, r.seconds, r.elapsed_s, r.interrupted, r.notes);
  out["syscall_eagain"] = figure(r.syscall_eagain);
  out["wake_call"] = figure(r.wake_call);
  out["wake_to_running"] = figure(r.wake_to_running);
  out["context_switch"] = figure(r.context_switch);
  out["atomic_wait"] = figure(r.atomic_wait);
  const np::OsCostEstimate& e = r.estimate;
  out["os_costs"] = Json{{"syscall_entry_ns", hundredths(e.syscall_entry_ns)},
                         {"syscall_exit_ns", hundredths(e.syscall_exit_ns)},
                         {"unpark_ns", hundredths(e.unpark_ns)},
                         {"wake_ns", hundredths(e.wake_ns)},
                         {"context_switch_ns", hundredths(e.context_switch_ns)},
                         {"notes", e.notes}};
  return out;
}

}  // namespace lockstep::driver
