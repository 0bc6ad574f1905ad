// Test-and-test-and-set spinlock: spin reading the word (shared in every cache) and only try
// the exchange when it looks free, so waiters do not bounce the line while it is held.
// Unfair: no order among waiters.
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
class TtasLock {
 public:
  using Platform = P;
  // Waiters need no node of their own; the type exists so every lock kind has one API
  // (spin_guard.hpp).
  struct Node {};

  void lock(std::source_location site = std::source_location::current()) {
    bool waiting = false;  // noted once per lock(), however often the exchange loses
    for (;;) {
      while (word_.load(std::memory_order_relaxed) != 0) {
        note_waiting(waiting, site);
        P::cpu_relax();
      }
      if (word_.exchange(1, std::memory_order_acquire) == 0) break;
      note_waiting(waiting, site);
    }
    P::note_lock(this, LockNote::acquire, false, site);
  }

  bool try_lock(std::source_location site = std::source_location::current()) {
    const bool ok = word_.load(std::memory_order_relaxed) == 0 && word_.exchange(1, std::memory_order_acquire) == 0;
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

}  // namespace lockstep
