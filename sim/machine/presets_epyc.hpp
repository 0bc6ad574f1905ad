// A two-socket AMD EPYC whose core-to-core latencies core-to-core-latency measured
// (docs/machines.md, "EPYC Milan"). make_preset (presets.cpp) names it.
#pragma once

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

MachineConfig epyc_7r13_2s();  // 2 x EPYC 7R13 (Milan): 96 cores in 12 core complexes, 192 threads

}  // namespace lockstep::sim::machine
