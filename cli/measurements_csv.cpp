#include "cli/measurements_csv.hpp"

#include <fmt/format.h>

namespace lockstep::cli {

using report::MachineMeasurements;

std::string histogram_csv(const MachineMeasurements& m) {
  std::string out = "lo_ns,hi_ns,count\n";
  for (const auto& b : m.histogram) out += fmt::format("{},{},{}\n", b.lo_ns, b.hi_ns, b.count);
  return out;
}

std::string c2c_csv(const MachineMeasurements& m) {
  std::string out = "cpu";
  for (int cpu : m.c2c_cpus) out += fmt::format(",{}", cpu);
  out += '\n';
  for (std::size_t i = 0; i < m.c2c_ns.size(); ++i) {
    out += fmt::format("{}", m.c2c_cpus[i]);
    for (double v : m.c2c_ns[i]) out += fmt::format(",{:.1f}", v);
    out += '\n';
  }
  return out;
}

}  // namespace lockstep::cli
