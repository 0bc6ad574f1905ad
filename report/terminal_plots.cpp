#include "report/terminal_plots.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace lockstep::report {

std::string render_histogram(const MachineMeasurements& m, int rows, int width) {
  if (m.histogram.empty()) return {};
  const double lo = std::max(1.0, static_cast<double>(m.histogram.front().lo_ns));
  const double hi = std::max(lo + 1, static_cast<double>(m.histogram.back().hi_ns));
  const double ratio = std::pow(hi / lo, 1.0 / rows);
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(rows), 0);
  for (const auto& b : m.histogram) {
    const double v = std::max(1.0, static_cast<double>(b.lo_ns));
    auto row = static_cast<std::size_t>(std::log(v / lo) / std::log(ratio));
    counts[std::min(row, counts.size() - 1)] += b.count;
  }
  const std::uint64_t tallest = *std::max_element(counts.begin(), counts.end());
  std::string out;
  for (int r = 0; r < rows; ++r) {
    const std::uint64_t c = counts[static_cast<std::size_t>(r)];
    if (c == 0) continue;
    const double from = lo * std::pow(ratio, r);
    const double to = lo * std::pow(ratio, r + 1);
    const auto bar = static_cast<int>(std::ceil(static_cast<double>(c) * width / static_cast<double>(tallest)));
    out += fmt::format("  {:>8.1f} - {:>8.1f} ns | {:<{}} {}\n", from, to,
                       std::string(static_cast<std::size_t>(bar), '#'), width, c);
  }
  if (!m.peaks_ns.empty()) {
    out += "  peaks (tallest first):";
    for (double p : m.peaks_ns) out += fmt::format(" {:.1f}", p);
    out += " ns\n";
  }
  return out;
}

std::string render_ccbench(const MachineMeasurements& m) {
  if (m.ccbench.empty()) return {};
  std::string out = fmt::format("  ccbench: {}, ns\n  {:>5}  {:<14} {:>8} {:>8} {:>8} {:>8}\n", m.ccbench_test, "cpu",
                                "distance", "mean", "median", "min", "max");
  for (const auto& row : m.ccbench)
    out += fmt::format("  {:>5}  {:<14} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f}\n", row.cpu, row.distance, row.mean_ns,
                       row.median_ns, row.min_ns, row.max_ns);
  return out;
}

std::string render_c2c(const MachineMeasurements& m) {
  if (m.c2c_ns.empty()) return {};
  std::string out = "  one-way core-to-core latency, ns\n      ";
  for (int cpu : m.c2c_cpus) out += fmt::format("{:>6}", cpu);
  out += '\n';
  for (std::size_t i = 0; i < m.c2c_ns.size(); ++i) {
    out += fmt::format("  {:>4}", m.c2c_cpus[i]);
    for (double v : m.c2c_ns[i]) out += v == 0 ? fmt::format("{:>6}", "-") : fmt::format("{:>6.0f}", v);
    out += '\n';
  }
  return out;
}

}  // namespace lockstep::report
