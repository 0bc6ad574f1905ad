// Axis ticks shared by the timeline's ruler and the charts' axes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace lockstep::view {

// 1, 2 or 5 times a power of ten, the smallest at least `min_step`: a tick spacing people read easily.
inline double nice_step(double min_step) {
  if (!(min_step > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(min_step)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= min_step) return m * p;
  return 10 * p;
}

// The ticks of an axis over [lo, hi]: multiples k * step of a nice step at least `min_step`,
// at most `most` of them. Each is computed from its integer k, never by adding steps to a
// running value: at 10^16 a step of 1 is below the spacing of doubles, and `t += step` never
// moved (a trace with one latency of 10^16 ns hung the statistics view; a sweep
// whose rows were all -1e18 hung growing to 3.9 GB). The step is also kept above the
// spacing of doubles at the range's magnitude and above (hi - lo) / most, so any finite
// range gives a short list. Empty for a range that is not finite.
inline std::vector<double> axis_ticks(double lo, double hi, double min_step, std::size_t most = 64) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo || most == 0) return ticks;
  const double magnitude = std::max(std::abs(lo), std::abs(hi));
  const double step = nice_step(std::max({min_step, magnitude * 0x1p-50, (hi - lo) / static_cast<double>(most)}));
  if (!std::isfinite(step) || !(step > 0)) return ticks;
  const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  // |k| <= 2^50 here (the step is at least 2^-50 of the magnitude), so k + 1 is exact.
  for (double k = first; k <= last && ticks.size() < most; k += 1) ticks.push_back(k * step);
  return ticks;
}

}  // namespace lockstep::view
