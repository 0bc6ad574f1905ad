// The probe's threads and its clock: bodies started together on their own threads, and
// the deadline every experiment loop polls alongside Ctrl-C.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace lockstep::native::fileio {

using Clock = std::chrono::steady_clock;

// Runs each body on its own thread, released at once after all have started (so thread
// creation does not stagger them and the race is real), joins them all, and rethrows the
// first exception one threw.
void race(const std::vector<std::function<void()>>& bodies);

// When an experiment must stop: its slice of the probe's time is spent, or the user
// interrupted.
struct Deadline {
  Clock::time_point at;
  bool passed() const;
};

}  // namespace lockstep::native::fileio
