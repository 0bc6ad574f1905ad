// C++20's std::atomic<uint32_t>::wait / notify_one / notify_all as a futex backend
// (core/futex/futex_backend.hpp). libstdc++ puts 32-bit waits straight on futex(2) but keeps
// a count of waiters in a side table, so a notify with nobody waiting skips the system call:
// its own wake fast path, which the comparison shows.
//
// Two differences from futex(2) that callers must allow for: wait() returns only once the
// value differs from `expected` (a wake that leaves the value alone wakes nobody), and
// notify does not say how many it woke.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "core/futex/futex_backend.hpp"

namespace lockstep::native {

class AtomicWaitFutex {
 public:
  using Word = std::atomic<std::uint32_t>;
  static constexpr std::string_view kDescription = "libstdc++ std::atomic wait/notify";

  futex::FutexError wait(Word& word, std::uint32_t expected) {
    if (word.load(std::memory_order_acquire) != expected) return futex::FutexError::eagain;
    word.wait(expected, std::memory_order_acquire);
    return futex::FutexError::ok;
  }

  futex::WakeResult wake(Word& word, int count) {
    if (count == 1) {
      word.notify_one();
    } else {
      word.notify_all();
    }
    return futex::WakeResult{0, false};
  }
};

static_assert(futex::FutexBackend<AtomicWaitFutex, AtomicWaitFutex::Word>);

}  // namespace lockstep::native
