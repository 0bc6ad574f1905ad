// What a workload measured, for result rows (docs/results.md, "Workload results"): named
// labels (strings) and figures (numbers) in a fixed order, plus optional per-thread figures.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lockstep {

struct WorkloadMetrics {
  std::vector<std::pair<std::string, std::string>> labels;  // e.g. {"design", "baseline"}
  std::vector<std::pair<std::string, double>> values;       // e.g. {"ops_per_s", 1.2e6}
  std::string per_thread_name;                              // e.g. "per_thread_ops_per_s"
  std::vector<double> per_thread;

  bool empty() const { return labels.empty() && values.empty() && per_thread.empty(); }
  double value(const std::string& name) const {
    for (const auto& [n, v] : values)
      if (n == name) return v;
    return 0;
  }
};

}  // namespace lockstep
