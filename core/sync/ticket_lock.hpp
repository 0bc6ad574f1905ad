// Ticket spinlock: FIFO hand-off through two counters. The Linux x86 spinlock from 2.6.25
// until queued spinlocks (4.2); the futex wake fast path of b0c29f79 relied on its
// spin_is_locked() being exact (docs/sources.md section 1).
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
class TicketLock {
 public:
  using Platform = P;
  // Waiters need no node of their own; the type exists so every lock kind has one API
  // (spin_guard.hpp).
  struct Node {};

  void lock(std::source_location site = std::source_location::current()) {
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    for (bool waiting = false; serving_.load(std::memory_order_acquire) != ticket; waiting = true) {
      if (!waiting) P::note_lock(this, LockNote::wait, false, site);
      P::cpu_relax();
    }
    P::note_lock(this, LockNote::acquire, false, site);
  }

  bool try_lock(std::source_location site = std::source_location::current()) {
    std::uint32_t serving = serving_.load(std::memory_order_relaxed);
    std::uint32_t expected = serving;
    const bool ok = next_.compare_exchange_strong(expected, serving + 1, std::memory_order_acquire);
    if (ok) P::note_lock(this, LockNote::acquire, false, site);
    return ok;
  }

  void unlock() {
    // Noted before the store that frees the lock, so the next holder's acquire follows it.
    P::note_lock(this, LockNote::release, false, {});
    // Only the holder writes serving_, so a plain increment by load+store is enough.
    const std::uint32_t serving = serving_.load(std::memory_order_relaxed);
    serving_.store(serving + 1, std::memory_order_release);
  }

  void lock(Node&, std::source_location site = std::source_location::current()) { lock(site); }
  bool try_lock(Node&, std::source_location site = std::source_location::current()) { return try_lock(site); }
  void unlock(Node&) { unlock(); }

  // True while some thread holds or waits for the lock.
  bool is_locked() const { return next_.load(std::memory_order_relaxed) != serving_.load(std::memory_order_relaxed); }

 private:
  typename P::template Atomic<std::uint32_t> next_{0};
  typename P::template Atomic<std::uint32_t> serving_{0};
};

}  // namespace lockstep
