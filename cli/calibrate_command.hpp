// `lockstep calibrate [--out FILE] [--seconds S] [--transfer-from c2c|ccbench]`: runs the native probes, fits this
// host's machine model to them (driver/calibration.hpp), stores the machine file as this host's calibration
// (spec/host_calibration.hpp: what `preset: host` then uses) and, with
// --out, writes a copy. Exit 0; 130 when interrupted (nothing is stored).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "driver/calibration.hpp"

namespace lockstep::cli {

struct CalibrateCommand {
  std::string out;
  double seconds = 12;  // all probes together
  bool no_store = false;
  bool if_missing = false;  // keep this host's stored calibration when there is one
  bool quiet = false;
  driver::TransferFit transfer_from = driver::TransferFit::legs;  // --transfer-from
};

CLI::App* add_calibrate(CLI::App& app, CalibrateCommand& command);
int run_calibrate(const CalibrateCommand& command);

}  // namespace lockstep::cli
