// The machine probes on the terminal: how each was timed, then its figures.
#include <string>

#include <fmt/format.h>

#include "driver/native_probes.hpp"
#include "report/terminal_plots.hpp"

namespace lockstep::driver {

namespace {

namespace np = native::probes;

// 4 KiB, 6 KiB, 1.5 MiB, 256 MiB: the probe's sizes are powers of two and 1.5 times them.
std::string byte_size(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:g} {}", v, kUnits[unit]);
}

std::string clock_line(const np::ClockInfo& c) {
  if (!c.tsc) return fmt::format("clock: clock_gettime(CLOCK_MONOTONIC) ({})\n", c.why_not_tsc);
  return fmt::format("clock: {} (invariant TSC, rate measured over {:.0f} ms of CLOCK_MONOTONIC_RAW{})\n",
                     c.description(), c.calibration_s * 1e3,
                     c.rdtscp ? "" : "; no RDTSCP, LFENCE;RDTSC ends intervals");
}

std::string run_lines(double elapsed_s, bool interrupted, const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += fmt::format("note: {}\n", n);
  out += fmt::format("elapsed {:.2f} s{}\n", elapsed_s, interrupted ? "; interrupted: what was measured so far" : "");
  return out;
}

std::string huge_page_line(const np::MemoryProbeResult& r) {
  std::string out = fmt::format("huge pages: THP {}", r.thp_mode.empty() ? "not in this kernel" : r.thp_mode);
  for (const np::MemoryBuffer& b : r.buffers)
    out += fmt::format("; node {}: {} of {} in huge pages{}", b.node, byte_size(b.anon_huge_bytes), byte_size(b.bytes),
                       b.huge_pages_requested ? "" : " (not requested)");
  return out + "\n";
}

std::string figure_row(const char* name, const np::FutexFigure& f) {
  if (!f.measured) return fmt::format("  {:<34} not measured: {}\n", name, f.note);
  const measure::LatencySummary& s = f.latency;
  std::string out =
      fmt::format("  {:<34} {:>10.0f} {:>10.0f} {:>10.0f} {:>9}", name, s.median_ns, s.p10_ns, s.p90_ns, s.samples);
  if (f.not_asleep != 0) out += fmt::format("  ({} handoffs found the partner awake)", f.not_asleep);
  return out + "\n";
}

}  // namespace

std::string memory_probe_table(const np::MemoryProbeResult& r) {
  std::string out =
      fmt::format("memory probe: dependent loads over a random cycle through each buffer's lines, CPU {}\n", r.cpu);
  out += clock_line(r.clock);
  out += fmt::format("per access: (time of {} loads - {:.1f} ns, the clock's own cost) / {}\n", np::kBatchLoads,
                     r.clock_overhead_ns, np::kBatchLoads);
  out += fmt::format("last-level cache: {}{}\n", byte_size(r.llc.bytes), r.llc.known ? " (sysfs)" : " [guess]");
  out += huge_page_line(r);
  out += fmt::format("  {:>9} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9}  {}\n", "size", "node", "median_ns", "p10_ns",
                     "p90_ns", "mean_ns", "batches", "peaks_ns");
  for (const np::MemorySizeResult& s : r.sizes) {
    std::string peaks;
    for (double p : s.peaks_ns) peaks += fmt::format("{}{:.1f}", peaks.empty() ? "" : " ", p);
    out += fmt::format("  {:>9} {:>4} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9}  {}\n", byte_size(s.bytes), s.node,
                       s.latency.median_ns, s.latency.p10_ns, s.latency.p90_ns, s.latency.mean_ns, s.latency.samples,
                       peaks);
  }
  return out + run_lines(r.elapsed_s, r.interrupted, r.notes);
}

std::string c2c_probe_table(const np::C2cProbeResult& r) {
  std::string out = fmt::format(
      "c2c probe: CAS ping-pong on one line between pinned threads, {} rounds per batch, "
      "one way = round trip / 2, the least median of five consecutive parts of the batches\n",
      r.rounds_per_batch);
  out += fmt::format(
      "  on CPU {}, uncontended: a locked fetch_add on its own line {:.2f} ns, a seq_cst fence {:.2f} ns, "
      "a pause {:.2f} ns\n",
      r.cpus.empty() ? -1 : r.cpus.front(), r.own_line_rmw_ns, r.fence_ns, r.pause_ns);
  if (r.cpus.size() >= 2)
    out += fmt::format(
        "  CPUs {} and {} adding to one counter: {:.2f} adds in a row before the line moves (median); CPU {} "
        "re-reading a line it wrote after CPU {} loaded it: {:.1f} ns (median); their ping-pong's one way varies "
        "by {:.1f} ns (interquartile range, round trips timed one by one)\n",
        r.cpus[0], r.cpus[1], r.adds_per_handover, r.cpus[0], r.cpus[1], r.writer_reread_ns, r.one_way_iqr_ns);
  if (!r.one_way_ns.empty()) {
    out += clock_line(r.clock);
    report::MachineMeasurements m;
    m.c2c_cpus = r.cpus;
    m.c2c_ns = r.one_way_ns;
    out += render_c2c(m);
  }
  return out + run_lines(r.elapsed_s, r.interrupted, r.notes);
}

std::string futex_probe_table(const np::FutexProbeResult& r) {
  std::string out = fmt::format("futex probe: CPUs {} and {}\n", r.cpu_a, r.cpu_b);
  out += clock_line(r.clock);
  out += fmt::format("  {:<34} {:>10} {:>10} {:>10} {:>9}\n", "figure", "median_ns", "p10_ns", "p90_ns", "samples");
  out += figure_row("FUTEX_WAIT -> EAGAIN (syscall)", r.syscall_eagain);
  out += figure_row("FUTEX_WAKE of a sleeper (caller)", r.wake_call);
  out += figure_row("wake to running (2 CPUs)", r.wake_to_running);
  out += figure_row("context switch (1 CPU)", r.context_switch);
  out += figure_row("atomic wait/notify (2 CPUs)", r.atomic_wait);
  const np::OsCostEstimate& e = r.estimate;
  out += fmt::format(
      "simulator OS costs from these: syscall_entry_ns {:.0f}, syscall_exit_ns {:.0f} (half each "
      "[guess]), unpark_ns {:.0f}, wake_ns {:.0f}, context_switch_ns {:.0f}\n",
      e.syscall_entry_ns, e.syscall_exit_ns, e.unpark_ns, e.wake_ns, e.context_switch_ns);
  for (const std::string& n : e.notes) out += fmt::format("note: {}\n", n);
  return out + run_lines(r.elapsed_s, r.interrupted, r.notes);
}

}  // namespace lockstep::driver
