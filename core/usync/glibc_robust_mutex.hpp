// glibc's robust mutex (PTHREAD_MUTEX_ROBUST, the normal kind), before and after its lost
// wake-up was fixed (sourceware bug 20973, Torvald Riegel's "Robust mutexes: Fix lost
// wake-up", glibc 2.25; docs/bugs.md). Written from nptl's published algorithm
// (pthread_mutex_lock.c, pthread_mutex_unlock.c, lowlevelrobustlock.c in
// https://sourceware.org/git/glibc.git) and the commit's account, not from its code.
//
// The word is a robust futex word (robust_futex.hpp): the owner's thread id, FUTEX_WAITERS,
// FUTEX_OWNER_DIED.
//
//   2.24  (the generic C path that every target but x86 ran) lock: read the word; if the owner
//         died, CAS in tid | (the word's FUTEX_WAITERS) and return EOWNERDEAD; otherwise
//         lll_robust_lock: CAS 0 to tid, and on failure __lll_robust_lock_wait: set
//         FUTEX_WAITERS, sleep while the word holds what it set, and retry with a CAS of 0 to
//         tid | FUTEX_WAITERS; seeing FUTEX_OWNER_DIED it returns the word, and the lock goes
//         back to the owner-died case. The flaw: a thread that slept may have shared
//         FUTEX_WAITERS with other sleepers, but if it then takes the lock over from a dead
//         owner whose word had lost the bit (the owner had taken the lock with the plain CAS
//         of 0 to its tid), it takes it without the bit, and its unlock wakes nobody.
//   2.25  the fix: a thread that has set, or slept on, FUTEX_WAITERS keeps it in every word it
//         writes from then on (`assume_other_futex_waiters`), including the owner-died CAS.
//
// Unlock (both): exchange 0 into the word; if FUTEX_WAITERS was set, wake one.
//
// lock() returns whether the previous owner died (EOWNERDEAD). The caller is taken to make
// the mutex consistent at once (pthread_mutex_consistent), so the `__owner` field, the
// non-recoverable state, the robust list's user-side bookkeeping, recursion and error
// checking, timeouts and process-shared futexes are not modelled.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>

#include "core/platform.hpp"
#include "core/usync/futex_kernel.hpp"
#include "core/usync/robust_futex.hpp"

namespace lockstep::usync {

enum class RobustMutexFix : std::uint8_t {
  none,         // glibc 2.24: the owner-died CAS keeps only the FUTEX_WAITERS it finds
  keep_waiters  // glibc 2.25 (bug 20973): a thread that may share FUTEX_WAITERS keeps it set
};

template <Platform P, FutexKernel<P> K>
class GlibcRobustMutex {
 public:
  GlibcRobustMutex(K& kernel, RobustMutexFix fix) : kernel_(std::addressof(kernel)), fix_(fix) {}
  GlibcRobustMutex(const GlibcRobustMutex&) = delete;
  GlibcRobustMutex& operator=(const GlibcRobustMutex&) = delete;

  // `tid`: the caller's thread id, in 1 .. kFutexTidMask. True: the previous owner died.
  bool lock(std::uint32_t tid, std::source_location site = std::source_location::current()) {
    P::invariant([tid] { return tid != 0 && (tid & ~kFutexTidMask) == 0; }, "a robust mutex's tid fits its 30 bits");
    ProtocolSteps<P> steps("pthread_mutex_lock (robust)");
    const bool died = fix_ == RobustMutexFix::none ? lock_2_24(steps, tid, site) : lock_2_25(steps, tid, site);
    P::note_lock(&word_, LockNote::acquire, false, site);
    return died;
  }

  void unlock(std::uint32_t) {
    ProtocolSteps<P> steps("pthread_mutex_unlock (robust)");
    P::note_lock(&word_, LockNote::release, false, {});
    steps.next("exchange 0 into the word");
    if ((word_.exchange(0, std::memory_order_release) & kFutexWaiters) != 0) {
      steps.next("FUTEX_WAITERS was set: wake one");
      kernel_->wake(word_, 1);
    }
  }

  FutexWord<P>& word() { return word_; }

 private:
  // glibc 2.24: pthread_mutex_lock's robust case around lll_robust_lock.
  bool lock_2_24(ProtocolSteps<P>& steps, std::uint32_t tid, const std::source_location& site) {
    steps.next("read the word");
    std::uint32_t seen = word_.load(std::memory_order_relaxed);
    bool waiting = false;
    for (;;) {
      if ((seen & kFutexOwnerDied) != 0) {
        steps.next("owner died: CAS in tid | the FUTEX_WAITERS found");
        const std::uint32_t mine = tid | (seen & kFutexWaiters);
        if (word_.compare_exchange_strong(seen, mine, std::memory_order_acquire)) return true;
        continue;  // `seen` holds what the CAS found
      }
      steps.next("lll_robust_lock: CAS 0 to tid");
      seen = 0;
      if (word_.compare_exchange_strong(seen, tid, std::memory_order_acquire)) return false;
      if (!waiting) P::note_lock(&word_, LockNote::wait, false, site);
      waiting = true;
      seen = robust_lock_wait(steps, tid);
      if (seen == 0) return false;
    }
  }

  // glibc 2.24's __lll_robust_lock_wait: 0 once it holds the lock (as tid | FUTEX_WAITERS),
  // or the word when it finds the owner dead.
  std::uint32_t robust_lock_wait(ProtocolSteps<P>& steps, std::uint32_t tid) {
    steps.next("lll_robust_lock_wait: read the word");
    std::uint32_t seen = word_.load(std::memory_order_relaxed);
    for (bool first = true;; first = false) {
      if (!first || seen != 0) {
        if ((seen & kFutexOwnerDied) != 0) return seen;
        const std::uint32_t flagged = seen | kFutexWaiters;
        bool sleep = true;
        if (seen != flagged) {
          steps.next("set FUTEX_WAITERS");
          sleep = word_.compare_exchange_strong(seen, flagged, std::memory_order_acquire);
        }
        if (sleep) {
          steps.next("futex_wait while the word holds it");
          kernel_->wait(word_, flagged);
        }
      }
      steps.next("CAS 0 to tid | FUTEX_WAITERS");
      seen = 0;
      if (word_.compare_exchange_strong(seen, tid | kFutexWaiters, std::memory_order_acquire)) return 0;
    }
  }

  // glibc 2.25: one loop; `assume` becomes FUTEX_WAITERS once this thread may share the bit.
  bool lock_2_25(ProtocolSteps<P>& steps, std::uint32_t tid, const std::source_location& site) {
    steps.next("read the word");
    std::uint32_t seen = word_.load(std::memory_order_relaxed);
    std::uint32_t assume = 0;
    bool waiting = false;
    for (;;) {
      if (seen == 0) {
        steps.next("CAS 0 to tid | assumed FUTEX_WAITERS");
        if (word_.compare_exchange_strong(seen, tid | assume, std::memory_order_acquire)) return false;
      }
      if ((seen & kFutexOwnerDied) != 0) {
        steps.next("owner died: CAS in tid | FUTEX_WAITERS found or assumed");
        const std::uint32_t mine = tid | (seen & kFutexWaiters) | assume;
        if (word_.compare_exchange_strong(seen, mine, std::memory_order_acquire)) return true;
        continue;
      }
      if (!waiting) P::note_lock(&word_, LockNote::wait, false, site);
      waiting = true;
      if ((seen & kFutexWaiters) == 0) {
        steps.next("set FUTEX_WAITERS");
        if (!word_.compare_exchange_strong(seen, seen | kFutexWaiters, std::memory_order_acquire)) {
          steps.next("read the word");
          seen = word_.load(std::memory_order_relaxed);
          continue;
        }
        seen |= kFutexWaiters;
      }
      assume = kFutexWaiters;  // from here on the bit may be shared with other sleepers
      steps.next("futex_wait while the word holds it");
      kernel_->wait(word_, seen);
      steps.next("read the word");
      seen = word_.load(std::memory_order_relaxed);
    }
  }

  K* kernel_;
  RobustMutexFix fix_;
  FutexWord<P> word_{0};
};

}  // namespace lockstep::usync
