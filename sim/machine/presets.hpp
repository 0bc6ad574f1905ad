// Named machines: the facts of docs/sources.md section 4 (and the seed's DRAM timings) as
// MachineConfigs, plus `host`, read from this machine's sysfs (host_topology.hpp).
// docs/machines.md lists every number with its source and the figures each preset must
// reproduce once the memory model is calibrated.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

// The names make_preset knows, in the order `lockstep list` shows them.
std::vector<std::string> preset_names();

// The preset's configuration. `host` reads /sys each time it is made. Throws
// std::out_of_range for an unknown name (and what host_machine throws for `host`).
MachineConfig make_preset(std::string_view name);

}  // namespace lockstep::sim::machine
