// Three two-socket Xeon servers whose memory and cache-to-cache latencies Intel's Memory
// Latency Checker measured (docs/machines.md, "Two-socket Xeons"). make_preset (presets.cpp)
// names them.
#pragma once

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

MachineConfig skylake_sp_2s();    // 2 x Xeon Platinum 8180: 56 cores, 112 threads
MachineConfig cascade_lake_2s();  // 2 x Xeon Gold 6252N: 48 cores, 96 threads
MachineConfig ice_lake_2s();      // 2 x Xeon Platinum 8360Y: 72 cores, 144 threads

}  // namespace lockstep::sim::machine
