#include "driver/native_ccbench.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "driver/c2c_means.hpp"
#include "native/probes/ccbench_probe.hpp"
#include "native/runner.hpp"
#include "sim/machine/ccbench.hpp"
#include "sim/machine/host_topology.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::RowReport;
using scenario::Scenario;

RowReport run_native_ccbench(const Scenario& s) {
  const auto& params = s.workload.get<sim::machine::CcbenchParams>();
  const std::vector<CpuId> allowed = native::allowed_cpus();
  const auto require_allowed = [&](CpuId cpu, const char* role) {
    if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
      throw scenario::ScenarioError(
          fmt::format("{}: ccbench natively: {} CPU {} is not one this process may use", s.path, role, cpu));
  };
  native::probes::CcbenchProbeOptions o;
  o.state = params.state;
  o.op = params.op;
  o.repetitions = params.repetitions;
  o.holders.clear();
  for (const CpuId cpu : params.holders) {
    require_allowed(cpu, "holder");
    o.holders.push_back(cpu);
  }
  for (const CpuId cpu : params.cpus) {
    require_allowed(cpu, "measuring");
    o.cpus.push_back(cpu);
  }
  if (params.home) o.node = *params.home;
  const auto start = std::chrono::steady_clock::now();
  const native::probes::CcbenchProbeResult r = native::probes::ccbench_probe(o);
  const std::map<int, CpuPlace> places = host_places(sim::machine::read_host_topology());
  const auto place = [&places](int cpu) {
    const auto it = places.find(cpu);
    return it == places.end() ? CpuPlace{} : it->second;
  };
  const auto distance = [&](int cpu) -> std::string {
    if (o.holders.empty()) return "-";
    const CpuPlace a = place(o.holders.front());
    const CpuPlace b = place(cpu);
    if (a.package < 0 || b.package < 0) return "-";
    if (a.core == b.core) return "same core";
    return a.package == b.package ? "same package" : "other package";
  };
  RowReport report;
  report.strategy = "native";
  report.result = "pass";
  report.executions = r.rows.size();
  report.machine.ccbench_test = fmt::format("{} on {}", name_of(params.op), name_of(params.state));
  for (const native::probes::CcbenchProbeRow& row : r.rows)
    report.machine.ccbench.push_back(
        {row.cpu, distance(row.cpu), row.latency.mean_ns, row.latency.median_ns, row.min_ns, row.max_ns});
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace lockstep::driver
