// The host kernel's futex(2) as a futex backend (core/futex/futex_backend.hpp), so a native
// run can put our table designs beside the real thing: FUTEX_WAIT_PRIVATE and
// FUTEX_WAKE_PRIVATE on the word itself, which is what glibc's mutexes and perf bench do.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string_view>

#include "core/futex/futex_backend.hpp"

namespace lockstep::native {

class KernelFutex {
 public:
  using Word = std::atomic<std::uint32_t>;
  static constexpr std::string_view kDescription = "kernel futex(2), private";

  // EAGAIN when the word no longer holds `expected`; EINTR and a plain return are both
  // wakeups, possibly spurious, which callers re-check.
  futex::FutexError wait(Word& word, std::uint32_t expected) {
    const long r = syscall(SYS_futex, address(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
    return r == -1 && errno == EAGAIN ? futex::FutexError::eagain : futex::FutexError::ok;
  }

  // The kernel says how many it woke; whether it took the bucket lock it does not say.
  futex::WakeResult wake(Word& word, int count) {
    const long r = syscall(SYS_futex, address(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
    return futex::WakeResult{r > 0 ? static_cast<int>(r) : 0, false};
  }

 private:
  // The kernel reads the 32-bit word in place; std::atomic<uint32_t> is that word.
  static_assert(sizeof(Word) == sizeof(std::uint32_t) && Word::is_always_lock_free);
  static std::uint32_t* address(Word& word) { return reinterpret_cast<std::uint32_t*>(&word); }
};

static_assert(futex::FutexBackend<KernelFutex, KernelFutex::Word>);

}  // namespace lockstep::native
