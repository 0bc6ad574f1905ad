// A ccbench scenario on this host's CPUs (native/probes/ccbench_probe.hpp): the row a
// simulated ccbench reports, measured, for `lockstep native` and `lockstep compare`. The
// scenario's CPU numbers are this host's; each measuring CPU's distance from the first holder
// is read from sysfs (same core, same package, other package).
#pragma once

#include "report/row_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// Throws ScenarioError when the scenario names a CPU this process may not use.
report::RowReport run_native_ccbench(const scenario::Scenario& s);

}  // namespace lockstep::driver
