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
  // Waiters need no node of their own; the type exists so every lock kind has one API
  // (spin_guard.hpp).
  struct Node {};

  void lock() {
    for (;;) {
      while (word_.load(std::memory_order_relaxed) != 0) P::cpu_relax();
      if (word_.exchange(1, std::memory_order_acquire) == 0) return;
    }
  }

  bool try_lock() {
    return word_.load(std::memory_order_relaxed) == 0 &&
           word_.exchange(1, std::memory_order_acquire) == 0;
  }

  void unlock() { word_.store(0, std::memory_order_release); }

  void lock(Node&) { lock(); }
  bool try_lock(Node&) { return try_lock(); }
  void unlock(Node&) { unlock(); }

  bool is_locked() const { return word_.load(std::memory_order_relaxed) != 0; }

 private:
  typename P::template Atomic<std::uint32_t> word_{0};
};

}  // namespace lockstep
