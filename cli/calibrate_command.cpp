#include "cli/calibrate_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "driver/calibration.hpp"
#include "io/files.hpp"
#include "native/fileio/interrupt.hpp"
#include "native/probes/c2c_probe.hpp"
#include "native/probes/ccbench_probe.hpp"
#include "native/probes/futex_probe.hpp"
#include "native/probes/memory_probe.hpp"
#include "scenario/host_calibration.hpp"
#include "sim/machine/host_topology.hpp"

namespace lockstep::cli {

namespace {

namespace fs = std::filesystem;
namespace np = native::probes;

constexpr int kExitInterrupted = 130;
// How the budget is shared: the memory sweep has the most sizes to cover (and DRAM is slow
// to sample), the c2c matrix one pair here but n^2/2 on a big host [guess: proportions].
constexpr double kMemoryShare = 0.5;
constexpr double kC2cShare = 0.2;
constexpr double kFutexShare = 0.3;

std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string huge_pages_of(const np::MemoryProbeResult& r) {
  std::uint64_t huge = 0;
  std::uint64_t mapped = 0;
  for (const np::MemoryBuffer& b : r.buffers) {
    huge += b.anon_huge_bytes;
    mapped += b.bytes;
  }
  if (huge == 0) return fmt::format("4 KiB pages (THP {})", r.thp_mode.empty() ? "absent" : r.thp_mode);
  return fmt::format("{:.0f}% of the buffer in 2 MiB pages",
                     100.0 * static_cast<double>(huge) / static_cast<double>(mapped == 0 ? 1 : mapped));
}

// The probes' figures in the fit's terms: the chase CPU's own node; the median batch, which
// averages 256 loads, is the mean per access the simulator reports.
driver::CalibrationMeasurements measurements(const np::MemoryProbeResult& memory, const np::C2cProbeResult& c2c,
                                             const np::CcbenchProbeResult& ccbench, const np::FutexProbeResult& futex,
                                             std::vector<std::string>& notes) {
  driver::CalibrationMeasurements m;
  m.clock = memory.clock.description();
  m.huge_pages = huge_pages_of(memory);
  const int home = memory.sizes.empty() ? 0 : memory.sizes.front().node;
  for (const np::MemorySizeResult& s : memory.sizes) {
    if (s.node == home) {
      m.memory.push_back({s.bytes, s.latency.median_ns});
    } else if (&s == &memory.sizes.back() || s.bytes >= memory.sizes.back().bytes) {
      notes.push_back(
          fmt::format("memory on node {} from CPU {}: {:.1f} ns per access at {} bytes (the model's remote "
                      "latency comes from its links, not from this figure)",
                      s.node, memory.cpu, s.latency.median_ns, s.bytes));
    }
  }
  m.c2c_cpus = c2c.cpus;
  m.c2c_ns = c2c.one_way_ns;
  if (c2c.own_line_rmw_ns > 0) m.own_line_rmw_ns = c2c.own_line_rmw_ns;
  if (c2c.fence_ns > 0) m.fence_ns = c2c.fence_ns;
  if (ccbench.rows.size() == 1 && ccbench.rows.front().latency.samples > 0)
    m.ccbench_transfer = driver::CalibrationMeasurements::Transfer{c2c.cpus[0], ccbench.rows.front().cpu,
                                                                   ccbench.rows.front().latency.median_ns};
  if (futex.syscall_eagain.measured) m.syscall_ns = futex.syscall_eagain.latency.median_ns;
  if (futex.wake_to_running.measured) m.wake_ns = futex.wake_to_running.latency.median_ns;
  if (futex.wake_call.measured) m.wake_call_ns = futex.wake_call.latency.median_ns;
  if (futex.context_switch.measured) m.context_switch_ns = futex.context_switch.latency.median_ns;
  for (const std::string& n : memory.notes) notes.push_back("memory probe: " + n);
  for (const std::string& n : c2c.notes) notes.push_back("c2c probe: " + n);
  for (const std::string& n : ccbench.notes) notes.push_back("ccbench probe: " + n);
  for (const std::string& n : futex.notes) notes.push_back("futex probe: " + n);
  return m;
}

}  // namespace

CLI::App* add_calibrate(CLI::App& app, CalibrateCommand& c) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure this host with the native probes and fit its machine model (what `preset: host` uses)");
  cmd->add_option("--out,-o", c.out, "Also write the machine file here");
  cmd->add_option("--seconds", c.seconds, "Time for all probes together")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 3600.0));
  cmd->add_flag("--no-store", c.no_store, "Do not keep it as this host's calibration");
  cmd->add_flag("--if-missing", c.if_missing, "Do nothing when this host already has a stored calibration");
  cmd->add_flag("--quiet,-q", c.quiet, "Print nothing but errors");
  const std::map<std::string, driver::TransferFit> fits{{"c2c", driver::TransferFit::c2c},
                                                        {"ccbench", driver::TransferFit::ccbench}};
  cmd->add_option("--transfer-from", c.transfer_from,
                  "What the model's in-package transfer is fitted to: the c2c ping-pong's one way, or ccbench's load "
                  "of a modified line (docs/compare.md, \"ccbench\")")
      ->transform(CLI::CheckedTransformer(fits))
      ->default_str("c2c");
  return cmd;
}

int run_calibrate(const CalibrateCommand& c) {
  if (c.if_missing && fs::exists(scenario::host_calibration_path())) {
    if (!c.quiet) fmt::print("this host is calibrated: {}\n", scenario::host_calibration_path());
    return 0;
  }
  const native::fileio::InterruptGuard guard;
  const auto stop = [] { return native::fileio::interrupted(); };
  if (!c.quiet) fmt::print("calibrating this host: the probes take about {:g} s\n", c.seconds);
  std::fflush(stdout);
  np::MemoryProbeOptions memory_options;
  memory_options.limits = {c.seconds * kMemoryShare, stop};
  const np::MemoryProbeResult memory = np::memory_probe(memory_options);
  np::C2cProbeOptions c2c_options;
  c2c_options.limits = {c.seconds * kC2cShare, stop};
  const np::C2cProbeResult c2c = memory.interrupted ? np::C2cProbeResult{} : np::c2c_probe(c2c_options);
  // One uncontended transfer between the c2c probe's first two CPUs: ccbench's load of a
  // modified line, 200 fresh lines (well under a second).
  np::CcbenchProbeResult ccbench;
  if (!c2c.interrupted && c2c.cpus.size() >= 2) {
    np::CcbenchProbeOptions o;
    o.limits = {0, stop};
    o.state = LineState::modified;
    o.op = CcOp::load;
    o.holders = {c2c.cpus[0]};
    o.cpus = {c2c.cpus[1]};
    o.repetitions = 200;
    ccbench = np::ccbench_probe(o);
  }
  np::FutexProbeOptions futex_options;
  futex_options.limits = {c.seconds * kFutexShare, stop};
  const np::FutexProbeResult futex =
      memory.interrupted || c2c.interrupted ? np::FutexProbeResult{} : np::futex_probe(futex_options);
  if (stop()) {
    std::fprintf(stderr, "interrupted: nothing was calibrated or stored\n");
    return kExitInterrupted;
  }
  std::vector<std::string> notes;
  const driver::CalibrationMeasurements measured = measurements(memory, c2c, ccbench, futex, notes);
  const fs::path work = fs::temp_directory_path() / fmt::format("lockstep-calibrate.{}", ::getpid());
  driver::Calibration calibration;
  try {
    calibration = driver::fit_calibration(sim::machine::read_host_topology(), measured, scenario::this_host(),
                                          now_utc(), work.string(), c.transfer_from);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(work, ignored);
    throw;
  }
  std::error_code ignored;
  fs::remove_all(work, ignored);
  calibration.info.notes.insert(calibration.info.notes.end(), notes.begin(), notes.end());
  const std::string text = driver::machine_file_text(calibration);
  std::vector<std::string> written;
  if (!c.no_store) {
    const std::string stored = scenario::host_calibration_path();
    fs::create_directories(fs::path(stored).parent_path());
    io::write_file_atomically(stored, text);
    written.push_back(stored);
  }
  if (!c.out.empty()) {
    io::write_file_atomically(c.out, text);
    written.push_back(c.out);
  }
  if (c.quiet) return 0;
  fmt::print("{} ({}), {}\n", calibration.info.host, calibration.info.cpu, calibration.info.clock);
  for (const auto& [field, from] : calibration.info.sources) fmt::print("  {:<22} {}\n", field, from);
  for (const std::string& path : written) fmt::print("written: {}\n", path);
  if (!c.no_store) fmt::print("scenarios with `machine: {{preset: host}}` now simulate this calibration\n");
  return 0;
}

}  // namespace lockstep::cli
