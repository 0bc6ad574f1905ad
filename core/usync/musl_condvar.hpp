// musl's condition variable as it was in 2011, before and after commit 97c5b5a8 ("fix ABA race
// in cond vars, improve them overall"; src/thread/pthread_cond_{timedwait,signal,broadcast}.c,
// https://git.musl-libc.org/cgit/musl/; docs/bugs.md): one futex word, `block`, and a count
// of waiters.
//
//   before  a waiter stores 1 into `block`, unlocks the mutex, counts itself and sleeps while
//           `block` is 1; a signal swaps 0 into `block` and wakes one if it was set or anyone
//           waits. The ABA: a waiter preempted between its unlock and its futex wait misses
//           the 1 -> 0 a signal made when a newer waiter has set `block` to 1 again; it sleeps
//           through the signal that was meant for it.
//   after   the waiter counts itself first and stores its own thread id, a token no other
//           thread writes, so `block` still holding it means no signal came; it sleeps while
//           it does. A signal stores 0 and wakes one if anyone waits.
//
// Timeouts and cancellation (the cleanup handler) are not modelled; EINTR cannot happen here.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/platform.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

enum class MuslCondvarFix : std::uint8_t {
  none,      // before 97c5b5a8: `block` is 1 for every waiter (the ABA)
  tid_token  // 97c5b5a8: each waiter's own thread id
};

template <Platform P, FutexKernel<P> Kernel>
class MuslCondvar {
 public:
  MuslCondvar(Kernel& kernel, MuslCondvarFix fix) : kernel_(std::addressof(kernel)), fix_(fix) {}
  MuslCondvar(const MuslCondvar&) = delete;
  MuslCondvar& operator=(const MuslCondvar&) = delete;

  // `tid`: the caller's thread id, never 0 (the fixed version's token).
  template <class M>
  void wait(M& mutex, std::uint32_t tid) {
    ProtocolSteps<P> steps("cond_wait");
    if (fix_ == MuslCondvarFix::none) {
      steps.next("set block to 1");
      block_.store(1, std::memory_order_relaxed);
      steps.next("release the mutex");
      mutex.unlock();
      steps.next("count itself a waiter");
      waiters_.fetch_add(1);
      steps.next("sleep while block is 1");
      kernel_->wait(block_, 1);
    } else {
      steps.next("count itself a waiter");
      waiters_.fetch_add(1);
      steps.next("set block to its thread id");
      block_.store(tid, std::memory_order_relaxed);
      steps.next("release the mutex");
      mutex.unlock();
      steps.next("sleep while block holds its thread id");
      // A return with `block` still its own is spurious (a wake meant for nobody in
      // particular): sleep again. EAGAIN (block changed) ends the wait.
      while (kernel_->wait(block_, tid) == futex::FutexError::ok && block_.load(std::memory_order_relaxed) == tid) {
      }
    }
    steps.next("uncount itself");
    waiters_.fetch_sub(1);
    steps.next("reacquire the mutex");
    mutex.lock();
  }

  void signal() { wake(1); }
  void broadcast() { wake(-1); }

  void label(std::string_view name) const {
    const LabelField fields[] = {label_field(*this, block_, "_c_block"), label_field(*this, waiters_, "_c_waiters")};
    P::label(this, sizeof *this, name, LabelLayout{0, 0, fields});
  }

 private:
  void wake(int count) {
    ProtocolSteps<P> steps(count == 1 ? "cond_signal" : "cond_broadcast");
    const int n = count < 0 ? 0x7fffffff : count;
    if (fix_ == MuslCondvarFix::none) {
      steps.next("read the waiter count, swap 0 into block");
      const std::uint32_t w = waiters_.load();
      if (block_.exchange(0) != 0 || w != 0) {
        steps.next("wake");
        kernel_->wake(block_, n);
      }
    } else {
      steps.next("store 0 into block");
      block_.store(0);
      steps.next("read the waiter count");
      if (waiters_.load() != 0) {
        steps.next("wake");
        kernel_->wake(block_, n);
      }
    }
  }

  Kernel* kernel_;
  MuslCondvarFix fix_;
  FutexWord<P> block_{0};
  typename P::template Atomic<std::uint32_t> waiters_{0};
};

}  // namespace lockstep::usync
