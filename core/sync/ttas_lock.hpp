// The two exchange spinlocks, one template: the lock is a word a waiter takes by exchanging
// 1 into it.
//  - TtasLock (test-and-test-and-set): spin reading the word (shared in every cache) and only
//    try the exchange when it looks free, so waiters do not bounce the line while it is held.
//  - TasLock (test-and-set): every attempt is an exchange, so each waiter's attempt takes the
//    line exclusive while the lock is held and the line bounces among all the waiters: the
//    simplest lock of the literature's comparisons (T. David, R. Guerraoui, V. Trigonakis,
//    SOSP 2013: TAS beside TTAS, ticket, MCS and CLH), the one whose cost under contention
//    shows most plainly what a coherence transfer costs.
// Both unfair: no order among waiters.
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P, bool kTestFirst>
class ExchangeLock {
 public:
  using Platform = P;
  // Waiters need no node of their own; the type exists so every lock kind has one API
  // (spin_guard.hpp).
  struct Node {};

  void lock(std::source_location site = std::source_location::current()) {
    bool waiting = false;  // noted once per lock(), however often the exchange loses
    for (;;) {
      if constexpr (kTestFirst) {
        while (word_.load(std::memory_order_relaxed) != 0) {
          note_waiting(waiting, site);
          P::cpu_relax();
        }
      }
      if (word_.exchange(1, std::memory_order_acquire) == 0) break;
      note_waiting(waiting, site);
      if constexpr (!kTestFirst) P::cpu_relax();
    }
    P::note_lock(this, LockNote::acquire, false, site);
  }

  bool try_lock(std::source_location site = std::source_location::current()) {
    const bool ok = (!kTestFirst || word_.load(std::memory_order_relaxed) == 0) &&
                    word_.exchange(1, std::memory_order_acquire) == 0;
    if (ok) P::note_lock(this, LockNote::acquire, false, site);
    return ok;
  }

  void unlock() {
    P::note_lock(this, LockNote::release, false, {});  // before the store that frees it
    word_.store(0, std::memory_order_release);
  }

  void lock(Node&, std::source_location site = std::source_location::current()) { lock(site); }
  bool try_lock(Node&, std::source_location site = std::source_location::current()) { return try_lock(site); }
  void unlock(Node&) { unlock(); }

  bool is_locked() const { return word_.load(std::memory_order_relaxed) != 0; }

 private:
  void note_waiting(bool& waiting, const std::source_location& site) {
    if (!waiting) P::note_lock(this, LockNote::wait, false, site);
    waiting = true;
  }

  typename P::template Atomic<std::uint32_t> word_{0};
};

template <Platform P>
using TtasLock = ExchangeLock<P, true>;
template <Platform P>
using TasLock = ExchangeLock<P, false>;

}  // namespace lockstep
