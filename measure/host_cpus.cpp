#include "measure/host_cpus.hpp"

#include <sched.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace lockstep::measure {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

int node_of_cpu(int cpu) {
  // The kernel links each CPU's directory to its node as a "nodeM" entry (what libnuma's
  // numa_node_of_cpu reads too).
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= 4 || name.compare(0, 4, "node") != 0) continue;
    const std::string digits = name.substr(4);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6) continue;
    return std::stoi(digits);
  }
  return 0;
}

}  // namespace lockstep::measure
