// Threads for the probes, each pinned to one CPU before its body runs, so a probe measures
// the CPUs it names and the scheduler cannot move a thread half-way.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace lockstep::native::probes {

// Pins the calling thread to `cpu`; throws std::runtime_error naming the CPU when the
// kernel refuses (a CPU outside the process's affinity, or offline).
void pin_this_thread(int cpu);

// Runs `body` on a new thread pinned to `cpu` and waits for it; an exception the body
// throws is rethrown here. The caller's own affinity is left as it was.
void run_pinned(int cpu, const std::function<void()>& body);

// Runs `a` on `cpu_a` and `b` on `cpu_b` (the same CPU is allowed), starting both bodies
// only once both threads are pinned; waits for both and rethrows the first exception.
void run_pinned_pair(int cpu_a, const std::function<void()>& a, int cpu_b, const std::function<void()>& b);

// Runs each body on a thread pinned to its CPU (CPUs may repeat), starting the bodies only
// once every thread is pinned; waits for all and rethrows the first exception.
struct PinnedBody {
  int cpu;
  std::function<void()> body;
};
void run_pinned_group(const std::vector<PinnedBody>& bodies);

// The CPUs a probe measures: every allowed CPU when there are at most `max_cpus`, else
// every k-th of them (k the smallest step that keeps at most `max_cpus`), with `note`
// saying which were kept.
struct CpuSample {
  std::vector<int> allowed;
  std::vector<int> measured;
  int step = 1;
  std::string note;
};
CpuSample sample_cpus(const std::vector<int>& allowed, std::size_t max_cpus);

}  // namespace lockstep::native::probes
