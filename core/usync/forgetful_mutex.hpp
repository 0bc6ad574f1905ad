// A known-bad variant of Drepper's "mutex, take 2" (drepper_mutex.hpp), kept so that the
// checker has a real flaw to find: after a wakeup it takes the lock in state 1 instead of 2.
//
// "Futexes Are Tricky" (docs/sources.md section 1) explains why take 2 relocks
// with a CAS of 0 to 2 after sleeping: a thread woken by an unlock cannot know whether
// others still sleep on the word, so it must leave the word saying "somebody may sleep".
// This variant relocks with 0 to 1, the obvious-looking choice. With two sleepers the first
// unlock wakes one; that one takes the lock in state 1, its unlock then sees 1, skips
// futex_wake, and the other sleeper is left behind for good: a deadlock once everyone else
// has finished. (When such an execution also has a futex_wake that woke fewer than it asked
// for, the checker calls it a lost_wakeup: docs/sources.md section 1's definition.)
#pragma once

#include <cstdint>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/usync/drepper_mutex.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

template <Platform P, FutexKernel<P> K = futex::FutexTable<P>>
class ForgetfulMutex : public ThreeStateMutexBase<P, K> {
 public:
  using ThreeStateMutexBase<P, K>::ThreeStateMutexBase;

  void lock() {
    bool waiting = false;
    for (std::uint32_t c = kUnlocked; !this->word_.compare_exchange_strong(c, kLocked, std::memory_order_acquire);
         c = kUnlocked) {
      if (!waiting) this->note(LockNote::wait);
      waiting = true;
      // Announce a sleeper as take 2 does; on failure `c` says what the word held.
      if (c == kLocked) this->word_.compare_exchange_strong(c, kContended, std::memory_order_relaxed);
      this->kernel_->wait(this->word_, kContended);
    }
    this->note(LockNote::acquire);
  }
};

}  // namespace lockstep::usync
