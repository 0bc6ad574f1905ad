// `lockstep compare`: a scenario's workload run natively on this host (several repetitions)
// and simulated on this host's model (its calibration, docs/machines.md "Machine files"),
// figure by figure: the native median with min and max, the simulated figure, and the error
// in percent of the native median; for a sweep of designs, each design's ratio to the first
// as well. A scenario's `expect: {fidelity: ...}` bounds the errors (docs/compare.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/row_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

struct CompareOptions {
  int repetitions = 5;
  std::string machine_file;  // empty: `preset: host` (this host's last calibration)
  std::optional<std::uint64_t> seed;
  // The simulated window of a timed workload (`runtime_us`) is at most this long: a rate is a
  // rate over any window, and simulating the native window (often 100 ms or more) would take
  // minutes. 0: the scenario's window.
  std::uint64_t sim_runtime_cap_us = 2000;
  // The native window of a timed workload is at least this long: over a few milliseconds a
  // native rate measures the threads' start and the timer more than the design, while a
  // scenario that is also simulated by `run` and `check` keeps a short window. 0: the
  // scenario's window.
  std::uint64_t native_runtime_floor_us = 100'000;
  // latency-probe and c2c rows: each native probe's budget, per repetition.
  double probe_seconds = 1.0;
  // --lock-profile: each row's locks profiled on both sides; natively in one extra run after
  // the measured ones, so that profiling does not slow the figures compared (docs/os.md).
  bool lock_profile = false;
};

// One figure both ways.
struct MetricComparison {
  std::string metric;          // "ops_per_s", "per_thread_ops_per_s[1]", ...
  std::vector<double> native;  // one value per native repetition
  double native_median = 0;
  double native_min = 0;
  double native_max = 0;
  std::optional<double> simulated;  // none: no simulated counterpart (a host-only backend)
  double error_pct = 0;             // (simulated - native median) / native median * 100
  std::optional<double> tolerance_pct;
  bool within = true;  // |error| <= tolerance, or no tolerance
};

struct CompareRow {
  std::vector<std::pair<std::string, std::string>> params;  // the sweep values
  std::vector<MetricComparison> metrics;
  std::string native_result;                           // the native runs' outcome: "pass", or the first violation
  std::string note;                                    // why a side is missing
  profile::LockProfile simulated_locks, native_locks;  // --lock-profile
};

// A design's figure over the baseline's (the first row with the same other sweep values).
struct RatioComparison {
  std::vector<std::pair<std::string, std::string>> params;    // the row
  std::vector<std::pair<std::string, std::string>> baseline;  // its baseline row
  MetricComparison ratio;                                     // metric "ops_per_s_ratio"; values are row / baseline
};

struct CompareReport {
  std::string scenario;
  std::string name;
  bool swept = false;
  int repetitions = 0;
  std::uint64_t sim_runtime_cap_us = 0;
  std::uint64_t native_runtime_floor_us = 0;
  report::MachineProvenance machine;
  std::vector<CompareRow> rows;
  std::vector<RatioComparison> ratios;
  bool passed() const;  // every figure within its tolerance and every native run passed
};

// Runs both sides. Throws ScenarioError when the workload has no native form, the scenario
// sweeps the machine, or a fidelity tolerance names a figure the workload does not report.
CompareReport compare_scenario(const std::string& path, const CompareOptions& options);

// The judging alone, on figures already measured: fills error_pct, tolerance_pct and within
// of every metric and ratio from `tolerances` (scenario `expect.fidelity`), and the ratios
// from the rows. Throws ScenarioError for a tolerance that names no reported figure.
void judge_fidelity(CompareReport& report, const std::vector<scenario::FidelityTolerance>& tolerances);

}  // namespace lockstep::driver
