// How a workload starts its threads, whatever the platform: the simulator makes fibers,
// the native runner makes pinned std::threads.
#pragma once

#include <functional>
#include <string>

#include "core/platform.hpp"

namespace lockstep {

using SpawnFn = std::function<void(std::string name, CpuId cpu, std::function<void()> body)>;

}  // namespace lockstep
