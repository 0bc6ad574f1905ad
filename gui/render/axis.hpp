// Axis ticks shared by the timeline's ruler and the charts' axes.
#pragma once

#include <cmath>

namespace lockstep::view {

// 1, 2 or 5 times a power of ten, the smallest at least `min_step`: a tick spacing people read easily.
inline double nice_step(double min_step) {
  if (!(min_step > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(min_step)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= min_step) return m * p;
  return 10 * p;
}

}  // namespace lockstep::view
