// `lockstep native`: runs a scenario's workload on real threads, pinned round robin to the
// CPUs this process may use, for real time (docs/architecture.md, "Natively"), and reports the
// same result rows as a simulation, with "platform": "native".
#pragma once

#include <string>

#include "driver/native_litmus.hpp"
#include "native/native_trace.hpp"
#include "report/row_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// Traces of native runs (docs/traces.md, "Native traces"). A path given for a sweep names
// every row's file: `-row<N>` goes before its extension (driver/trace_output.hpp, row_file).
struct NativeOptions {
  std::string trace_path;         // --trace
  std::string chrome_trace_path;  // --chrome-trace
  bool save_traces = false;       // --save-traces: every row's trace and Chrome trace into out_dir
  std::string out_dir = "out";
  native::TraceOptions trace;  // --trace-buffer, --trace-steps, --trace-sample
  NativeLitmusOptions litmus;  // thread programs' runs (driver/native_litmus.hpp)
  bool lock_profile = false;   // --lock-profile: each row profiles its locks (docs/os.md)
};

// Runs a (non-litmus) row once natively with its locks profiled (docs/os.md), events not
// traced: the row's report with lock_profile and lock_profile_unmatched filled.
report::RowReport run_native_row_profiled(const scenario::Scenario& s);

// Throws ScenarioError when some row's workload has no native form (latency-probe and c2c are
// the simulator's; compare holds them against the native probes), or a workload cannot use the
// row's futex backend.
void require_native(const scenario::ScenarioFile& file);

// Runs every row once, natively, recording its trace when `options` asks for one; thread
// programs many times, as litmus tests (driver/native_litmus.hpp), with `options.litmus`'s
// limits, and untraced. Call require_native first.
report::ScenarioReport run_native_file(const scenario::ScenarioFile& file, const NativeOptions& options = {});

}  // namespace lockstep::driver
