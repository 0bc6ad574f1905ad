// Test-and-set spinlock: every attempt is an exchange on the lock word, so each waiter's
// attempt takes the line exclusive while the lock is held, and the line bounces among all
// the waiters. The simplest lock of the literature's comparisons (T. David, R. Guerraoui,
// V. Trigonakis, SOSP 2013: TAS beside TTAS, ticket, MCS and CLH), and the one whose cost
// under contention shows most plainly what a coherence transfer costs. Unfair.
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
class TasLock {
 public:
  using Platform = P;
  struct Node {};  // no per-waiter state; the type keeps one API for every lock kind

  void lock(std::source_location site = std::source_location::current()) {
    bool waiting = false;
    while (word_.exchange(1, std::memory_order_acquire) != 0) {
      if (!waiting) P::note_lock(this, LockNote::wait, false, site);
      waiting = true;
      P::cpu_relax();
    }
    P::note_lock(this, LockNote::acquire, false, site);
  }

  bool try_lock(std::source_location site = std::source_location::current()) {
    const bool ok = word_.exchange(1, std::memory_order_acquire) == 0;
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
  typename P::template Atomic<std::uint32_t> word_{0};
};

}  // namespace lockstep
