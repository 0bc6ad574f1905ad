// A thread's deadline for its timed futex waits (futex(2)'s FUTEX_WAIT with a timeout, or
// FUTEX_WAIT_BITSET with an absolute one, as pthread_cond_timedwait passes it): the moment it
// passes is not the design's to know, so it is an event of its own. Whoever owns the deadline
// calls expire() from a step of its own (a thread programs' `timer:NAME` companion,
// docs/scenarios.md "futex_wait ... timeout"), so when it passes is the scheduling oracle's
// choice; a timed wait that finds it passed, before it sleeps or when woken, takes itself off
// its bucket and returns ETIMEDOUT unless a wake took it off first (Linux's futex_wait after
// its hrtimer fires: futex_unqueue, then -ETIMEDOUT).
//
// One deadline per thread, absolute: once passed it stays passed, so every later timed wait of
// the thread times out at once unless it is woken first.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>

#include "core/platform.hpp"

namespace lockstep::futex {

template <Platform P>
class FutexDeadline {
 public:
  using Thread = typename P::Thread;

  FutexDeadline() = default;
  FutexDeadline(const FutexDeadline&) = delete;
  FutexDeadline& operator=(const FutexDeadline&) = delete;

  // The sleeper, before each sleep: from now on expire() wakes it; true if already passed.
  // (It arms before it reads the deadline, and expire() writes the deadline before it looks
  // for a sleeper: one of the two sees the other, so no expiry is slept through.)
  bool arm_and_check() {
    {
      const std::lock_guard guard(mutex_);
      sleeper_ = P::self();
    }
    return passed_.load(std::memory_order_seq_cst) != 0;
  }
  void disarm() {
    const std::lock_guard guard(mutex_);
    sleeper_.reset();
  }

  // The deadline passes now; an armed sleeper is woken to see it.
  void expire() {
    passed_.exchange(1, std::memory_order_seq_cst);
    std::optional<Thread> sleeper;
    {
      const std::lock_guard guard(mutex_);
      sleeper = sleeper_;
    }
    if (sleeper) P::unpark(*sleeper);
  }

  // For a run of the same threads again (native litmus runs); no thread may be running.
  void reset() {
    passed_.store(0, std::memory_order_relaxed);
    sleeper_.reset();
  }

  typename P::template Atomic<std::uint32_t>& word() { return passed_; }

 private:
  typename P::template Atomic<std::uint32_t> passed_{0};
  // Host state: no critical section makes a P:: call, so a fiber never switches holding it.
  std::mutex mutex_;
  std::optional<Thread> sleeper_;
};

}  // namespace lockstep::futex
