#include "driver/c2c_means.hpp"

namespace lockstep::driver {

C2cMeans c2c_means(const std::vector<int>& cpus, const std::vector<std::vector<double>>& ns,
                   const std::function<CpuPlace(int)>& place) {
  C2cMeans m;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    for (std::size_t j = i + 1; j < cpus.size(); ++j) {
      const CpuPlace a = place(cpus[i]);
      const CpuPlace b = place(cpus[j]);
      if (a.core < 0 || b.core < 0 || a.core == b.core) continue;
      const bool same = a.package == b.package;
      (same ? m.same_package : m.cross_package) += ns[i][j];
      ++(same ? m.same_pairs : m.cross_pairs);
    }
  }
  if (m.same_pairs > 0) m.same_package /= m.same_pairs;
  if (m.cross_pairs > 0) m.cross_package /= m.cross_pairs;
  return m;
}

CpuPlace model_place(const sim::machine::MachineConfig& config, int model_cpu) {
  const int core = model_cpu % config.cores();
  return {core / config.cores_per_package, core};
}

std::map<int, CpuPlace> host_places(const sim::machine::HostTopology& host) {
  std::map<int, CpuPlace> out;
  for (std::size_t m = 0; m < host.host_cpu_of_model_cpu.size(); ++m)
    out[host.host_cpu_of_model_cpu[m]] = model_place(host.config, static_cast<int>(m));
  return out;
}

}  // namespace lockstep::driver
