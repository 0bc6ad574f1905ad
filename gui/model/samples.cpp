#include "gui/model/samples.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace lockstep::view {

namespace {

std::uint64_t nearest_rank(const std::vector<std::uint64_t>& sorted, double percent) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::ceil(percent / 100.0 * n));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// 1, 2 or 5 times a power of ten, the smallest at least `min_width`.
// Saturates at 2^64 - 1: a latency near 2^64 (a corrupt trace) must not loop forever.
std::uint64_t nice_width(std::uint64_t min_width) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t power = 1;; power *= 10) {
    for (std::uint64_t m : {1, 2, 5})
      if (m * power >= min_width) return m * power;
    if (power > kMax / 50) return kMax;
  }
}

}  // namespace

Distribution distribution_of(std::vector<std::uint64_t> samples) {
  Distribution d;
  if (samples.empty()) return d;
  std::sort(samples.begin(), samples.end());
  d.count = samples.size();
  d.total_ns = std::accumulate(samples.begin(), samples.end(), std::uint64_t{0});
  d.min_ns = samples.front();
  d.max_ns = samples.back();
  d.mean_ns = static_cast<double>(d.total_ns) / static_cast<double>(d.count);
  d.p50_ns = nearest_rank(samples, 50);
  d.p90_ns = nearest_rank(samples, 90);
  d.p99_ns = nearest_rank(samples, 99);
  return d;
}

std::vector<HistogramBin> bin_samples(const std::vector<std::uint64_t>& samples, std::size_t max_bins) {
  if (samples.empty()) return {};
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  const std::uint64_t span = *hi - *lo == std::numeric_limits<std::uint64_t>::max() ? *hi - *lo : *hi - *lo + 1;
  const std::uint64_t bins_wanted = std::max<std::size_t>(1, max_bins);
  const std::uint64_t width = nice_width((span + bins_wanted - 1) / bins_wanted);
  const std::uint64_t first = *lo / width * width;
  std::vector<HistogramBin> bins((*hi - first) / width + 1);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    bins[i].lo_ns = first + i * width;
    bins[i].hi_ns = bins[i].lo_ns + width;
  }
  for (std::uint64_t s : samples) ++bins[(s - first) / width].count;
  return bins;
}

}  // namespace lockstep::view
