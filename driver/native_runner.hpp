// `lockstep native`: runs a scenario's workload on real threads, pinned round robin to the
// CPUs this process may use, for real time (docs/architecture.md, "Natively"), and reports the
// same result rows as a simulation, with "platform": "native".
#pragma once

#include "driver/native_litmus.hpp"
#include "scenario/report.hpp"
#include "scenario/scenario.hpp"

namespace lockstep::driver {

// Throws ScenarioError when some row's workload has no native form (latency-probe and c2c are
// the simulator's), or a workload cannot use the row's futex backend.
void require_native(const scenario::ScenarioFile& file);

// Runs every row once, natively; thread programs many times, as litmus tests
// (driver/native_litmus.hpp), with `litmus`'s limits. Call require_native first.
scenario::ScenarioReport run_native_file(const scenario::ScenarioFile& file, const NativeLitmusOptions& litmus = {});

}  // namespace lockstep::driver
