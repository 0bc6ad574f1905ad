// Summaries of a list of durations in nanoseconds: a distribution (count, min, mean,
// percentiles, max) and a histogram. Shared by the statistics over a trace and by the
// result model, whose latency probes carry histograms of the same shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockstep::view {

// One bar of a latency histogram: how many samples fell in [lo_ns, hi_ns).
struct HistogramBin {
  std::uint64_t lo_ns = 0;
  std::uint64_t hi_ns = 0;
  std::uint64_t count = 0;
  bool operator==(const HistogramBin&) const = default;
};

// A chart wider than this many bars shows noise rather than shape; wider spans get wider bins.
constexpr std::size_t kMaxHistogramBins = 64;

struct Distribution {
  std::size_t count = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  double mean_ns = 0;
  // Nearest-rank percentiles: the smallest sample with at least p% of the samples at or below it.
  std::uint64_t p50_ns = 0;
  std::uint64_t p90_ns = 0;
  std::uint64_t p99_ns = 0;
};

Distribution distribution_of(std::vector<std::uint64_t> samples);

// Bins of equal width (1 ns, or 1, 2 or 5 times a power of ten when the samples span more
// than max_bins ns), aligned to multiples of the width, from the first non-empty one to the
// last, empty ones between included. No samples, no bins.
std::vector<HistogramBin> bin_samples(const std::vector<std::uint64_t>& samples,
                                      std::size_t max_bins = kMaxHistogramBins);

}  // namespace lockstep::view
