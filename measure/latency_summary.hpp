// The figures every probe reports for a set of timed samples: how many, the median, the
// mean and the 10th and 90th percentiles.
#pragma once

#include <cstdint>
#include <vector>

namespace lockstep::measure {

struct LatencySummary {
  std::uint64_t samples = 0;
  double median_ns = 0;
  double mean_ns = 0;
  double p10_ns = 0;
  double p90_ns = 0;
};

// Percentiles interpolate linearly between the two nearest ranks (`q` in [0, 1]);
// `sorted_ns` must be sorted and not empty.
double percentile(const std::vector<double>& sorted_ns, double q);

// All zero for no samples.
LatencySummary summarize(std::vector<double> samples_ns);

}  // namespace lockstep::measure
