// The futex parts of a scenario: `design: {futex: ...}` (a named design, optionally with
// overrides, or a host backend) and the futex workloads (futex-hash, futex-pingpong,
// futex-wake, futex-requeue, ring).
#pragma once

#include <string_view>
#include <vector>

#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

// `futex: NAME` or `futex: {design: NAME, sizing: ..., layout: ..., lock: ..., ...}`; NAME may
// also be `kernel` or `std-atomic-wait` (native runs only).
FutexDesign load_futex_design(const yaml::Source& src, const YAML::Node& node);

FutexHashParams load_futex_hash(const yaml::Map& workload, const MachineSpec& machine, const DesignSpec& design);
FutexPingpongParams load_futex_pingpong(const yaml::Map& workload, const MachineSpec& machine,
                                        const DesignSpec& design);
FutexRingParams load_futex_ring(const yaml::Map& workload, const MachineSpec& machine, const DesignSpec& design);
FutexWakeParams load_futex_wake(const yaml::Map& workload, const MachineSpec& machine, const DesignSpec& design,
                                FutexWakeMode mode);

// What the futex table is sized for on this machine (threads are the workload's).
futex::FutexMachine futex_machine(const MachineSpec& machine);

// The names `design: {futex: NAME}` takes: the table designs, then the host's futexes.
std::vector<std::string_view> futex_design_names();

}  // namespace lockstep::scenario
