// Core-to-core latency summarised the way calibration and comparison use it: the mean
// one-way latency over pairs of different cores in one package, and over pairs across
// packages (SMT siblings share a core's caches and are left out).
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "sim/machine/host_topology.hpp"
#include "sim/machine/machine_config.hpp"

namespace lockstep::driver {

struct CpuPlace {
  int package = -1;
  int core = -1;  // unique across packages; -1: not a CPU of the machine
};

struct C2cMeans {
  double same_package = 0;
  double cross_package = 0;
  int same_pairs = 0;
  int cross_pairs = 0;
};

// `ns[i][j]` is the one-way latency between cpus[i] and cpus[j]; `place` says where a CPU is.
C2cMeans c2c_means(const std::vector<int>& cpus, const std::vector<std::vector<double>>& ns,
                   const std::function<CpuPlace(int)>& place);

// Where each model CPU is (CPU i is thread i / cores of core i % cores).
CpuPlace model_place(const sim::machine::MachineConfig& config, int model_cpu);
// Where each host CPU is, by the model CPU that stands for it.
std::map<int, CpuPlace> host_places(const sim::machine::HostTopology& host);

}  // namespace lockstep::driver
