// Test-and-test-and-set spinlock: spin reading the word (shared in every cache) and only try
// the exchange when it looks free, so waiters do not bounce the line while it is held.
// Unfair: no order among waiters.
#pragma once

#include <cstdint>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
class TtasLock {
 public:
  using Platform = P;
  // Waiters need no node of their own; the type exists so every lock kind has one API
  // (spin_guard.hpp).
  struct Node {};

  void lock() {
    bool waiting = false;  // noted once per lock(), however often the exchange loses
    for (;;) {
      while (word_.load(std::memory_order_relaxed) != 0) {
        note_waiting(waiting);
        P::cpu_relax();
      }
      if (word_.exchange(1, std::memory_order_acquire) == 0) break;
      note_waiting(waiting);
    }
    P::note_lock(this, LockNote::acquire, false);
  }

  bool try_lock() {
    const bool ok = word_.load(std::memory_order_relaxed) == 0 && word_.exchange(1, std::memory_order_acquire) == 0;
    if (ok) P::note_lock(this, LockNote::acquire, false);
    return ok;
  }

  void unlock() {
    P::note_lock(this, LockNote::release, false);  // before the store that frees it
    word_.store(0, std::memory_order_release);
  }

  void lock(Node&) { lock(); }
  bool try_lock(Node&) { return try_lock(); }
  void unlock(Node&) { unlock(); }

  bool is_locked() const { return word_.load(std::memory_order_relaxed) != 0; }

 private:
  void note_waiting(bool& waiting) {
    if (!waiting) P::note_lock(this, LockNote::wait, false);
    waiting = true;
  }

  typename P::template Atomic<std::uint32_t> word_{0};
};

}  // namespace lockstep
