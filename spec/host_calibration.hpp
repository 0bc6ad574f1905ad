// Where this host's last calibration is kept, and the machine `preset: host` stands for:
// the calibrated machine when `lockstep calibrate` has measured this host, else the shape
// sysfs describes with nehalem-2s's latencies ([guess] until calibrated; host_topology.hpp).
//
// The store is a directory of machine files, one per host name:
//   $LOCKSTEP_CALIBRATION_DIR, else $XDG_STATE_HOME/lockstep, else ~/.local/state/lockstep;
// the file is calibration-HOSTNAME.yaml. A calibration is used only on the host it measured
// (same host name, CPU model and online CPU count), so a home directory shared by the
// machines of a cluster never lends one machine's numbers to another.
#pragma once

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "sim/machine/machine_config.hpp"
#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

struct HostIdentity {
  std::string host;  // uname's node name
  std::string cpu;   // /proc/cpuinfo's first "model name" ("unknown" without one)
  int cpus = 0;      // CPUs online
};
HostIdentity this_host();

// The store's directory and this host's file in it (which need not exist).
std::string calibration_dir();
std::string host_calibration_path(const HostIdentity& host = this_host());

struct HostMachine {
  sim::machine::MachineConfig config;
  std::optional<CalibrationInfo> calibration;  // set when the stored calibration is used
  std::string note;                            // otherwise: why not, and what to run
};
// Throws ScenarioError when the stored file exists but cannot be read as a machine file.
HostMachine calibrated_host_machine();

// The `calibration:` map of a machine file.
CalibrationInfo load_calibration_info(const yaml::Source& src, const YAML::Node& node);

}  // namespace lockstep::scenario
