// `lockstep calibrate`: this host's machine model fitted to what the native probes measured
// (docs/machines.md, "Calibration"). The shape and caches come from sysfs
// (sim/machine/host_topology.hpp); each latency is fitted by simulation: the simulator runs the
// same probe on the candidate machine and the parameter moves by the difference until the
// simulated figure matches the measured one. What nothing measured keeps nehalem-2s's number,
// marked [guess].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/machine/host_topology.hpp"
#include "sim/machine/machine_config.hpp"
#include "spec/host_calibration.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// What the probes measured, in the calibration's terms (cli/ fills it from the native probes).
struct CalibrationMeasurements {
  std::string clock;       // what timed them ("tsc 2.096 GHz")
  std::string huge_pages;  // whether the memory probe had huge pages, in words
  struct MemoryPoint {
    std::uint64_t bytes = 0;
    // The mean latency per access. The native probe times batches of 256 dependent loads, so
    // its median batch is the mean of a mix (at 4x the last level, a quarter of the loads
    // still hit it); the simulator's mean per access is the same quantity.
    double mean_ns = 0;
  };
  std::vector<MemoryPoint> memory;  // from the first CPU, its own node's memory
  // The host CPUs measured and the one-way CAS ping-pong latency between each pair.
  std::vector<int> c2c_cpus;
  std::vector<std::vector<double>> c2c_ns;
  // On the first c2c CPU, uncontended: a locked fetch_add on a line of its own, and a
  // seq_cst fence (c2c probe).
  std::optional<double> own_line_rmw_ns;
  std::optional<double> fence_ns;
  std::optional<double> pause_ns;  // one spin hint, back to back (c2c probe)
  // ccbench's load of a line another core of the package modified (native/probes/
  // ccbench_probe.hpp): one uncontended transfer, the median over fresh lines.
  struct Transfer {
    int holder = 0;
    int reader = 0;
    double ns = 0;
  };
  std::optional<Transfer> ccbench_transfer;
  // The c2c probe's first two CPUs adding to one counter: the mean run of adds one makes
  // before the line moves.
  std::optional<double> adds_per_handover;
  // The first c2c CPU re-reading a line it wrote after the second loaded it (c2c probe).
  std::optional<double> writer_reread_ns;
  // The interquartile range of the first two c2c CPUs' one-way times, round trip by round
  // trip (c2c probe).
  std::optional<double> one_way_iqr_ns;
  std::optional<double> syscall_ns;         // FUTEX_WAIT returning EAGAIN: a system call
  std::optional<double> wake_ns;            // a sleeping thread woken to running (ping-pong / 2)
  std::optional<double> wake_call_ns;       // the waker's FUTEX_WAKE of a sleeping thread, as it sees it
  std::optional<double> context_switch_ns;  // two threads on one CPU (ping-pong / 2)
};

// What `c2c_same_package_ns` (the model's transfer of a dirty line within a package) is
// fitted to. The model's ping-pong is cheaper than one transfer (the waiting side's request is
// already queued when the line arrives, so it saves a leg); this VM's ping-pong costs about
// 1.5 transfers (docs/compare.md, "ccbench"). So a model fitted to one misses the other:
//   c2c:     the CAS ping-pong's one way (the default; the presets' published figures are mostly
//            ping-pongs);
//   ccbench: ccbench's load of a modified line, one uncontended transfer (what a lock's
//            handover is made of).
//   legs:    ccbench's load for the transfer, and its legs (c2c_legs) fitted so that the
//            ping-pong and two CPUs' contended adds come out as measured too (the default).
enum class TransferFit { legs, c2c, ccbench };

struct Calibration {
  sim::machine::MachineConfig config;
  scenario::CalibrationInfo info;  // host, when, clock, a source for every fitted number, notes
};

// Fits the host's model. `when` is the time to record (ISO 8601 UTC); `work_dir` takes the
// temporary files of the simulated probes.
Calibration fit_calibration(const sim::machine::HostTopology& host, const CalibrationMeasurements& measured,
                            const scenario::HostIdentity& id, const std::string& when, const std::string& work_dir,
                            TransferFit transfer = TransferFit::legs);

// The machine file (docs/machines.md, "Machine files") that loads back as `c.config`.
std::string machine_file_text(const Calibration& c);

// The preset whose numbers the calibration starts from (and keeps where nothing was measured).
inline constexpr const char* kCalibrationBase = "nehalem-2s";

}  // namespace lockstep::driver
