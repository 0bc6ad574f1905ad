// A condition variable on one futex word: a sequence number that every signal and broadcast
// increments, in the manner of the condvar in "Futexes Are Tricky" and of glibc's condvar
// before 2.25 (which kept more counters, for reasons this one does not have: cancellation
// and process-shared condvars).
//
//   Condvar<P, Mutex3<P>> cv(kernel, mutex);
//   mutex.lock(); while (!ready) cv.wait(mutex); mutex.unlock();
//   mutex.lock(); ready = true; mutex.unlock(); cv.broadcast();
//
// Why the sequence works: a waiter reads it while holding the mutex, so any signal that
// follows a change of the predicate (made under the mutex after the waiter released it)
// increments it after that read. The waiter's futex_wait compares the word with the value
// it read under the bucket lock, so such a signal either finds the waiter queued or makes
// its wait fail with EAGAIN; it cannot fall between the two.
//
// Known limit: the sequence is 32 bits. A waiter that is preempted between reading it and
// its futex_wait while exactly 2^32 signals (or a multiple) happen sees its old value again
// and sleeps through all of them: an ABA the futex interface cannot rule out with one 32-bit
// word. glibc's old condvar had the same window; its 2.25 rewrite narrows it with 64-bit
// counters split over two futex groups. Waiters must still loop on their predicate, since a
// wait may return without a signal (EAGAIN, a requeue, a stolen signal) as POSIX allows.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/properties.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

// What a condvar needs of its mutex: the word a broadcast may move sleepers onto, and a way
// to lock that leaves the word saying "someone may sleep here".
template <class M, class P>
concept RequeueTarget = requires(M m) {
  { m.word() } -> std::same_as<FutexWord<P>&>;
  m.lock();
  m.lock_contended();
  m.unlock();
};

enum class Broadcast : std::uint8_t {
  wake_all,  // futex_wake(INT_MAX): every waiter wakes and all but one sleep again on the mutex
  requeue,   // FUTEX_CMP_REQUEUE: wake one, move the others onto the mutex word (old glibc)
};

enum class Relock : std::uint8_t {
  contended,  // relock in state 2, as glibc did: required when broadcast requeues
  plain,      // relock with lock(): WRONG with requeue (a moved sleeper is never woken); kept so
              // the checker can show that lost wakeup, as the futex table keeps its broken variants
};

struct CondvarConfig {
  Broadcast broadcast = Broadcast::requeue;
  Relock relock = Relock::contended;
};

template <Platform P, RequeueTarget<P> Mutex, FutexKernel<P> Kernel = futex::FutexTable<P>>
class Condvar {
 public:
  // A condvar serves one mutex at a time (POSIX leaves waits with different mutexes
  // undefined); binding it here is what lets broadcast() requeue without taking the mutex.
  Condvar(Kernel& kernel, Mutex& mutex, CondvarConfig config = {})
      : kernel_(std::addressof(kernel)), mutex_(std::addressof(mutex)), config_(config) {}
  Condvar(const Condvar&) = delete;
  Condvar& operator=(const Condvar&) = delete;

  // The caller holds `held`, which must be the bound mutex; it holds it again on return.
  void wait(Mutex& held) {
    if (std::addressof(held) != mutex_)
      P::violation(property::condvar_mutex, "a condvar was waited on with a mutex other than its own");
    const std::uint32_t seen = seq_.load(std::memory_order_relaxed);
    held.unlock();
    // EAGAIN means a signal came after the unlock: return, and the caller rechecks.
    kernel_->wait(seq_, seen);
    // A requeued sleeper comes back here after a mutex unlock woke it, and others may still
    // sleep on the mutex word with nothing to show for it: the requeue did not write 2 into
    // the word. Relocking in state 2 makes our unlock wake the next of them. (The thread the
    // broadcast woke directly does the same, which is what keeps the chain going.)
    if (config_.relock == Relock::contended) {
      held.lock_contended();
    } else {
      held.lock();
    }
  }

  void signal() {
    seq_.fetch_add(1, std::memory_order_seq_cst);
    kernel_->wake(seq_, 1);
  }

  void broadcast() {
    const std::uint32_t mine = seq_.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (config_.broadcast == Broadcast::wake_all) {
      // The thundering herd: every waiter runs, and all but one go back to sleep on the
      // mutex, after two context switches each.
      kernel_->wake(seq_, INT_MAX);
      return;
    }
    // Wake one waiter and move the rest onto the mutex word, where each is woken by a mutex
    // unlock in turn, never all at once. What makes this correct is the one we wake: it
    // relocks in state 2, after the requeue has finished, so the unlock that follows sees 2
    // and wakes a moved sleeper, which relocks in state 2 in its turn (see wait()). With
    // nobody woken, moved sleepers could lie on a word that says 0 or 1 forever.
    //
    //
    // We use the comparing form (FUTEX_CMP_REQUEUE), as glibc did once plain FUTEX_REQUEUE
    // proved racy for it. Here the compare does not carry correctness (the woken relocker
    // does): it only stops a broadcast that a newer signal or broadcast overtook from moving
    // a queue that the newer one now acts on. On a mismatch we wake everyone, which is
    // always correct, only slower.
    const futex::RequeueResult r = kernel_->requeue(seq_, mutex_->word(), 1, INT_MAX, mine);
    if (r.error == futex::FutexError::eagain) kernel_->wake(seq_, INT_MAX);
  }

  FutexWord<P>& word() { return seq_; }

 private:
  Kernel* kernel_;
  Mutex* mutex_;
  CondvarConfig config_;
  FutexWord<P> seq_{0};
};

}  // namespace lockstep::usync
