// The host measured for `lockstep calibrate`: the memory, core-to-core, ccbench and futex
// probes (native/probes/) run in turn within one budget, their figures put in the fit's terms
// (CalibrationMeasurements), with the probes' notes, and the fit to them. The command line
// calls calibrate_host and stores what it returns; it runs no probe itself.
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

struct HostCalibration {
  Calibration calibration;   // its notes end with the probes'
  bool interrupted = false;  // nothing was fitted
};

// `lockstep calibrate`'s work: probe_host, then fit_calibration at the current time (UTC),
// its simulated probes' files in a scratch directory under the system's temporary one,
// removed after. While it runs, the first SIGINT, SIGTERM or SIGHUP only raises a flag the
// probes poll (native/fileio/interrupt.hpp), so they stop and clean up; a second ends the
// process. Interrupted, it fits nothing.
HostCalibration calibrate_host(double seconds, TransferFit transfer);

}  // namespace lockstep::driver
