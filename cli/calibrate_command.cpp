#include "cli/calibrate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "driver/calibration.hpp"
#include "driver/host_probes.hpp"
#include "io/files.hpp"
#include "spec/host_calibration.hpp"

namespace lockstep::cli {

namespace {

namespace fs = std::filesystem;

constexpr int kExitInterrupted = 130;  // the shell's code for a process ended by SIGINT

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
  const std::map<std::string, driver::TransferFit> fits{{"legs", driver::TransferFit::legs},
                                                        {"c2c", driver::TransferFit::c2c},
                                                        {"ccbench", driver::TransferFit::ccbench}};
  cmd->add_option("--transfer-from", c.transfer_from,
                  "What the model's in-package transfer is fitted to: ccbench's load of a modified line with its "
                  "legs fitted to the ping-pong and to contended adds (legs), the c2c ping-pong's one way alone, or "
                  "ccbench's load alone (docs/machines.md, \"Calibration\")")
      ->transform(CLI::CheckedTransformer(fits))
      ->default_str("legs");
  return cmd;
}

int run_calibrate(const CalibrateCommand& c) {
  if (c.if_missing && fs::exists(scenario::host_calibration_path())) {
    if (!c.quiet) fmt::print("this host is calibrated: {}\n", scenario::host_calibration_path());
    return 0;
  }
  if (!c.quiet) fmt::print("calibrating this host: the probes take about {:g} s\n", c.seconds);
  std::fflush(stdout);
  const driver::HostCalibration fitted = driver::calibrate_host(c.seconds, c.transfer_from);
  if (fitted.interrupted) {
    std::fprintf(stderr, "interrupted: nothing was calibrated or stored\n");
    return kExitInterrupted;
  }
  const driver::Calibration& calibration = fitted.calibration;
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
