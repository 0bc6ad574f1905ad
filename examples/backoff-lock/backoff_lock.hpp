// A user's lock, written against lockstep's Platform concept as any design in lockstep's own
// core/ is: a test-and-test-and-set lock with exponential backoff (T. E. Anderson, "The
// performance of spin lock alternatives for shared-memory multiprocessors", IEEE TPDS 1990).
// `Broken` builds the mistake the checker should catch: the "set" is a load and a separate
// store, so two threads can both see the lock free and both take it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/platform.hpp"

namespace example {

template <lockstep::Platform P, bool Broken = false>
class BackoffLock {
 public:
  void lock() {
    std::uint32_t backoff = 1;
    for (;;) {
      while (word_.load(std::memory_order_relaxed) != 0) P::cpu_relax();
      if (try_take()) return;
      for (std::uint32_t i = 0; i < backoff; ++i) P::cpu_relax();  // wait longer after each loss
      backoff = std::min<std::uint32_t>(backoff * 2, kMaxBackoff);
    }
  }
  void unlock() { word_.store(0, std::memory_order_release); }

 private:
  static constexpr std::uint32_t kMaxBackoff = 64;  // pauses; an example's choice, not tuned

  bool try_take() {
    if constexpr (Broken) {
      if (word_.load(std::memory_order_acquire) != 0) return false;
      word_.store(1, std::memory_order_relaxed);  // another thread may have taken it meanwhile
      return true;
    } else {
      return word_.exchange(1, std::memory_order_acquire) == 0;
    }
  }

  typename P::template Atomic<std::uint32_t> word_{0};
};

}  // namespace example
