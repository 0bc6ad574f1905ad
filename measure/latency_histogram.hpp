// Latencies as the probes report them, simulated and native alike: how many accesses took
// each whole number of nanoseconds, that in bins, and the peaks (a cache level's hits, DRAM)
// that the calibration reads levels from (docs/machines.md, "Memory latency").
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace lockstep::measure {

// Latency (ns) -> how many accesses took exactly that long.
using LatencyCounts = std::map<std::uint64_t, std::uint64_t>;

struct HistogramBin {
  std::uint64_t lo_ns = 0;
  std::uint64_t hi_ns = 0;  // exclusive
  std::uint64_t count = 0;
};
std::vector<HistogramBin> histogram(const LatencyCounts& counts, std::uint64_t bin_ns);

struct Peak {
  double centre_ns = 0;
  std::uint64_t count = 0;  // accesses within the peak's window
};
// Local maxima of the histogram holding at least `min_fraction` of the samples, tallest first.
std::vector<Peak> find_peaks(const LatencyCounts& counts, double min_fraction = 0.005);

}  // namespace lockstep::measure
