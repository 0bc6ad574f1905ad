// A sense-reversing spin barrier (Mellor-Crummey and Scott, "Algorithms for scalable
// synchronization on shared-memory multiprocessors", 1991, section 3.3): the last thread to
// arrive resets the count and flips the shared sense, which releases the others. Each thread
// keeps its own sense, so the barrier can be crossed again at once, with no second phase.
// The native litmus harness crosses it twice per run, millions of times (litmus_harness.hpp).
#pragma once

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/platform.hpp"
#include "native/native_platform.hpp"

namespace lockstep::native {

class SpinBarrier {
 public:
  // Spins of a waiting thread before it starts yielding its CPU: a thread of the barrier that
  // the OS descheduled (more threads than CPUs, or a busy host) must get the CPU back.
  // [guess] 4096 pauses are a few to tens of microseconds, far longer than a crossing.
  static constexpr std::uint32_t kSpinsBeforeYield = 4096;

  explicit SpinBarrier(std::size_t parties) : parties_(parties), remaining_(parties) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  // Waits until every party arrived, or until `abandon` becomes true (then returns false).
  // `sense` is the calling thread's own, false before its first crossing.
  bool arrive_and_wait(bool& sense, const std::atomic<bool>& abandon) {
    sense = !sense;
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      remaining_.store(parties_, std::memory_order_relaxed);
      sense_.store(sense, std::memory_order_release);  // publishes the count reset too
      return true;
    }
    for (std::uint32_t spins = 0; sense_.load(std::memory_order_acquire) != sense; ++spins) {
      if (abandon.load(std::memory_order_relaxed)) return false;
      if (spins < kSpinsBeforeYield) {
        NativePlatform::cpu_relax();
      } else {
        sched_yield();
      }
    }
    return true;
  }

 private:
  const std::size_t parties_;
  alignas(kCacheLineBytes) std::atomic<std::size_t> remaining_;
  alignas(kCacheLineBytes) std::atomic<bool> sense_{false};
};

}  // namespace lockstep::native
