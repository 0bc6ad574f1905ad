// What bounds a probe: a total time, and a flag (Ctrl-C in the command line, a test's own
// flag) that ends it early. Probes poll both between timed batches, never inside one.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>

namespace lockstep::native::probes {

struct ProbeLimits {
  double seconds = 2;
  std::function<bool()> stop;  // empty: never asked to stop

  bool stopped() const { return stop && stop(); }
};

// The probe's end, and how its remaining time is shared among the parts still to run.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Deadline(double seconds)
      : start_(Clock::now()),
        end_(start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))) {}

  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool passed() const { return Clock::now() >= end_; }
  // An even share of what is left for the next of `parts_left` parts (this one included),
  // after setting `reserved_s` aside for work still to come outside the parts.
  Clock::time_point next_part_end(std::size_t parts_left, double reserved_s = 0) const {
    const Clock::time_point now = Clock::now();
    const auto reserved = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(reserved_s));
    if (now + reserved >= end_ || parts_left == 0) return now;
    return now + (end_ - now - reserved) / static_cast<long>(parts_left);
  }

 private:
  Clock::time_point start_;
  Clock::time_point end_;
};

}  // namespace lockstep::native::probes
