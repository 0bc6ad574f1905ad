// The host measured for `lockstep calibrate`: the memory, core-to-core, ccbench and futex
// probes (native/probes/) run in turn within one budget, their figures put in the fit's terms
// (CalibrationMeasurements), with the probes' notes. The command line calls this and the fit;
// it does not run the probes itself.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "driver/calibration.hpp"

namespace lockstep::driver {

struct HostProbes {
  CalibrationMeasurements measured;
  std::vector<std::string> notes;  // what each probe noted, prefixed with its name
  bool interrupted = false;        // `stop` said so before every probe had run
};

// `seconds` for all probes together (shared as the constants in host_probes.cpp say);
// `stop` is polled between timed batches.
HostProbes probe_host(double seconds, const std::function<bool()>& stop);

}  // namespace lockstep::driver
