// The machine this process runs on, as a MachineConfig read from sysfs: packages, cores,
// SMT threads, NUMA nodes and the cache hierarchy. sysfs says nothing about latencies, so
// those are nehalem-2s's, marked "[guess] until calibrated from native probes".
//
// The model has one NUMA node per package and numbers CPUs its own way (every core's first
// thread, package by package, then every core's second thread). A host that differs (sub-
// NUMA clustering, CPUs numbered alternately across sockets, uneven packages) is mapped as
// closely as the model allows; HostTopology::notes says what was approximated, and
// host_cpu_of_model_cpu says which host CPU plays each model CPU (for pinning native runs).
#pragma once

#include <string>
#include <vector>

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

struct HostTopology {
  MachineConfig config;                    // preset name `host`
  std::vector<int> host_cpu_of_model_cpu;  // one entry per model CPU: the Linux CPU number
  std::vector<std::string> notes;          // each approximation made, in words
  bool caches_from_sysfs = false;          // false: sysfs listed no cache, config.caches are nehalem-2s's
};

// Reads `sysfs_root`/devices/system/{cpu,node}. Throws std::runtime_error, naming the file,
// when a file it needs is missing or malformed.
HostTopology read_host_topology(const std::string& sysfs_root = "/sys");

MachineConfig host_machine(const std::string& sysfs_root = "/sys");

}  // namespace lockstep::sim::machine
