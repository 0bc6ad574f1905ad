// Robust futexes: what the Linux kernel does with a robust mutex's futex word when its owner
// dies (Documentation/locking/robust-futex-ABI.rst and kernel/futex/core.c's
// handle_futex_death, https://www.kernel.org/doc/html/latest/locking/robust-futex-ABI.html;
// docs/bugs.md). The word of a robust mutex holds its owner's thread id in the low 30 bits,
// FUTEX_WAITERS (bit 31) when a thread may sleep on it, and FUTEX_OWNER_DIED (bit 30) once
// its owner died holding it.
//
// A thread registers its robust mutexes on a list in user memory (set_robust_list); when the
// thread exits, however it exits, the kernel walks that list in the dying thread's own exit
// path and, for every word whose owner bits are the dying thread's id, replaces them with
// FUTEX_OWNER_DIED, keeping FUTEX_WAITERS, and wakes one sleeper if FUTEX_WAITERS was set.
// The next thread to lock the mutex gets EOWNERDEAD and owns it.
//
// Modelled: that walk, one word at a time, as the exiting thread's own steps (a load, a CAS
// retried while the word changes under it, and the futex wake). Not modelled: the list in
// user memory and its `list_op_pending` slot (every robust mutex is taken to be on the list of
// whichever thread owns it, the list glibc keeps correct), priority-inheritance futexes, and
// the pending-op case in which the kernel wakes a waiter of a word whose owner bits are 0.
#pragma once

#include <cstdint>

#include "core/platform.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

// The bits of a robust futex word (include/uapi/linux/futex.h).
inline constexpr std::uint32_t kFutexWaiters = 0x8000'0000U;
inline constexpr std::uint32_t kFutexOwnerDied = 0x4000'0000U;
inline constexpr std::uint32_t kFutexTidMask = 0x3fff'ffffU;

// The kernel's exit path for one robust futex word of the exiting thread `tid`
// (handle_futex_death): nothing unless the word names `tid` as its owner.
template <Platform P, FutexKernel<P> K>
void handle_futex_death(FutexWord<P>& word, std::uint32_t tid, K& kernel) {
  ProtocolSteps<P> steps("robust list: owner died");
  steps.next("read the word");
  std::uint32_t seen = word.load(std::memory_order_relaxed);
  for (;;) {
    if ((seen & kFutexTidMask) != tid) return;
    steps.next("mark the owner dead, keep FUTEX_WAITERS");
    const std::uint32_t marked = (seen & kFutexWaiters) | kFutexOwnerDied;
    if (word.compare_exchange_strong(seen, marked, std::memory_order_seq_cst)) break;
    // The word changed under the kernel (a waiter set FUTEX_WAITERS): read again and retry.
  }
  if ((seen & kFutexWaiters) != 0) {
    steps.next("wake one waiter");
    kernel.wake(word, 1);
  }
}

}  // namespace lockstep::usync
