#include "measure/latency_summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace lockstep::measure {

double percentile(const std::vector<double>& sorted_ns, double q) {
  if (sorted_ns.empty() || q < 0 || q > 1) throw std::logic_error("percentile of no samples, or q outside [0, 1]");
  const double rank = q * static_cast<double>(sorted_ns.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted_ns.size() - 1);
  return sorted_ns[lo] + (rank - static_cast<double>(lo)) * (sorted_ns[hi] - sorted_ns[lo]);
}

LatencySummary summarize(std::vector<double> samples_ns) {
  LatencySummary s;
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  s.samples = samples_ns.size();
  s.median_ns = percentile(samples_ns, 0.5);
  s.p10_ns = percentile(samples_ns, 0.1);
  s.p90_ns = percentile(samples_ns, 0.9);
  s.mean_ns = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / static_cast<double>(samples_ns.size());
  return s;
}

}  // namespace lockstep::measure
