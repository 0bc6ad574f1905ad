#include "measure/latency_histogram.hpp"

#include <algorithm>

namespace lockstep::measure {

std::vector<HistogramBin> histogram(const LatencyCounts& counts, std::uint64_t bin_ns) {
  std::vector<HistogramBin> bins;
  for (const auto& [latency, count] : counts) {
    const std::uint64_t lo = latency / bin_ns * bin_ns;
    if (bins.empty() || bins.back().lo_ns != lo) bins.push_back(HistogramBin{lo, lo + bin_ns, 0});
    bins.back().count += count;
  }
  return bins;
}

std::vector<Peak> find_peaks(const LatencyCounts& counts, double min_fraction) {
  std::uint64_t total = 0;
  for (const auto& [latency, count] : counts) total += count;
  auto count_at = [&](std::uint64_t latency) {
    auto it = counts.find(latency);
    return it == counts.end() ? std::uint64_t{0} : it->second;
  };
  // A peak is a latency whose count no value within its window beats; its window is +-3%
  // (at least 1 ns), so 1.5 ns L1 hits and 3.8 ns L2 hits stay apart while DRAM's spread of
  // a few nanoseconds stays one peak.
  auto window = [](std::uint64_t latency) {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.03 * static_cast<double>(latency) + 0.5));
  };
  std::vector<Peak> peaks;
  for (const auto& [latency, c] : counts) {
    const std::uint64_t w = window(latency);
    bool is_max = true;
    for (std::uint64_t d = 1; d <= w && is_max; ++d) {
      if (count_at(latency + d) > c) is_max = false;
      if (latency >= d && count_at(latency - d) >= c) is_max = false;  // ties go to the lower value
    }
    if (!is_max) continue;
    double weighted = 0;
    std::uint64_t mass = 0;
    for (auto it = counts.lower_bound(latency >= w ? latency - w : 0); it != counts.end() && it->first <= latency + w;
         ++it) {
      weighted += static_cast<double>(it->first) * static_cast<double>(it->second);
      mass += it->second;
    }
    if (static_cast<double>(mass) < min_fraction * static_cast<double>(total)) continue;
    peaks.push_back(Peak{weighted / static_cast<double>(mass), mass});
  }
  std::stable_sort(peaks.begin(), peaks.end(), [](const Peak& a, const Peak& b) { return a.count > b.count; });
  return peaks;
}

}  // namespace lockstep::measure
