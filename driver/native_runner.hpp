// `lockstep native`: runs a scenario's workload on real threads, pinned round robin to the
// CPUs this process may use, for real time (docs/architecture.md, "Natively"), and reports the
// same result rows as a simulation, with "platform": "native".
#pragma once

#include "scenario/report.hpp"
#include "scenario/scenario.hpp"

namespace lockstep::driver {

// Throws ScenarioError when some row's workload has no native form (latency-probe, c2c and
// thread programs are the simulator's), or a workload cannot use the row's futex backend.
void require_native(const scenario::ScenarioFile& file);

// Runs every row once, natively. Call require_native first.
scenario::ScenarioReport run_native_file(const scenario::ScenarioFile& file);

}  // namespace lockstep::driver
