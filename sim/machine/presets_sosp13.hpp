// The two machines of David, Guerraoui and Trigonakis's synchronization study (SOSP 2013),
// as their topology and latencies were measured again by mctop (docs/machines.md, "The
// SOSP'13 machines"). make_preset (presets.cpp) names them.
#pragma once

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

MachineConfig opteron_6172_4s();   // 4 x AMD Opteron 6172: 48 cores on 8 dies
MachineConfig xeon_e7_8867l_8s();  // 8 x Intel Xeon E7-8867L: 80 cores, 160 threads

}  // namespace lockstep::sim::machine
