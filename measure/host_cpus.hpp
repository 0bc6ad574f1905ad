// The CPUs this process may run on and the NUMA node of each, as the kernel gives them: what
// a native scenario's machine is (spec/platform_loader.cpp) and where the native runner
// pins its threads (native/runner.hpp). Neither simulator nor native code: facts about the host.
#pragma once

#include <vector>

namespace lockstep::measure {

// The CPUs in this process's affinity mask, in increasing order; {0} when it cannot be read.
std::vector<int> allowed_cpus();

// The NUMA node sysfs lists CPU `cpu` under (devices/system/cpu/cpuN/nodeM); 0 on a host
// without NUMA nodes in sysfs, or for a CPU it does not list.
int node_of_cpu(int cpu);

}  // namespace lockstep::measure
