// The futex mutexes of Ulrich Drepper's "Futexes Are Tricky" (2004, revised 2011), each one
// 32-bit word in platform memory over a futex kernel (FutexTable<P> or a wrapper of it):
//
//   SimpleMutex  the paper's first attempt, in the form that is correct but slow: 0 free,
//                1 taken; every unlock asks the kernel to wake someone.
//   Mutex2       the paper's second version: three states, so an uncontended unlock stays
//                in user space, at the price of up to three atomic operations per lock.
//   Mutex3       the paper's final version: the same three states with one exchange in the
//                contended path; what glibc's lowlevellock did for years.
//
// Each has lock(), try_lock() and unlock(), plus word() and lock_contended() for the
// condition variable (condvar.hpp), whose broadcast moves sleepers onto the mutex word.
//
// The three states of Mutex2 and Mutex3 are:
//   0  unlocked;
//   1  locked, and nobody has announced that they sleep on the word;
//   2  locked, and somebody may sleep on the word: the unlocker must call futex_wake.
// The invariant that makes them correct: whenever a thread sleeps on the word, either the
// word is 2 or some thread that is awake will still exchange 2 into it before it sleeps or
// takes the lock. Then the unlock that finds 2 wakes a sleeper, and no sleeper is left
// behind.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

// Word values of the three-state mutexes.
inline constexpr std::uint32_t kUnlocked = 0;
inline constexpr std::uint32_t kLocked = 1;
inline constexpr std::uint32_t kContended = 2;

// What every mutex here is: one futex word, 0 when free, and the kernel that sleeps on it.
// try_lock is the same for all of them: the CAS of 0 to 1 that is also their fast path.
template <Platform P, FutexKernel<P> K>
class FutexMutexBase {
 public:
  using Platform = P;
  using Kernel = K;

  explicit FutexMutexBase(K& kernel) : kernel_(std::addressof(kernel)) {}
  FutexMutexBase(const FutexMutexBase&) = delete;
  FutexMutexBase& operator=(const FutexMutexBase&) = delete;

  bool try_lock(std::source_location site = std::source_location::current()) {
    const bool ok = acquire_if_free(kLocked) == kUnlocked;
    if (ok) note(LockNote::acquire, site);
    return ok;
  }
  FutexWord<P>& word() { return word_; }

 protected:
  // Trace notes name the mutex by its futex word, as the futex calls on it do.
  // `site`: where the caller took the lock (lock profiling); none for a release.
  void note(LockNote what, const std::source_location& site = {}) { P::note_lock(&word_, what, false, site); }

  // The fast path of every lock here: one CAS from 0 to `state`. Returns what the word held,
  // so 0 means the lock is ours.
  std::uint32_t acquire_if_free(std::uint32_t state) {
    std::uint32_t seen = kUnlocked;
    word_.compare_exchange_strong(seen, state, std::memory_order_acquire);
    return seen;
  }

  K* kernel_;
  FutexWord<P> word_{kUnlocked};
};

// Drepper's "mutex, take 1", made correct.
//
// The paper's first mutex locks with an atomic increment (`while ((c = atomic_inc(val)) != 0)
// futex_wait(&val, c + 1)`) and unlocks with `val = 0; futex_wake(&val, 1)`. The paper
// names two problems with it:
//   - unlock always makes a system call, even when nobody waits, which is most of the time;
//     a futex_wake costs hundreds of cycles more than the store that frees the lock;
//   - every contender changes the word, so a waiter's futex_wait keeps failing with EAGAIN
//     while others increment it (a livelock under contention), and enough contenders wrap
//     the 32-bit counter back to 0, at which point a newcomer "acquires" a held lock.
// Here the increment is replaced by a compare-and-swap of 0 to 1, which cures both problems
// of the lock side; the unlock keeps the unconditional wake, so this mutex is correct and
// shows what the syscall on every unlock costs (compare it with Mutex3).
template <Platform P, FutexKernel<P> K = futex::FutexTable<P>>
class SimpleMutex : public FutexMutexBase<P, K> {
 public:
  using FutexMutexBase<P, K>::FutexMutexBase;

  void lock(std::source_location site = std::source_location::current()) {
    // Sleep only while the word still says "taken": the kernel rechecks it under the bucket
    // lock, so an unlock between our failed CAS and the wait makes the wait return at once.
    // try_lock notes the acquire.
    for (bool waiting = false; !this->try_lock(site); waiting = true) {
      if (!waiting) this->note(LockNote::wait, site);
      this->kernel_->wait(this->word_, kLocked);
    }
  }

  void unlock() {
    this->note(LockNote::release);  // before the store that frees it
    this->word_.store(kUnlocked, std::memory_order_release);
    // The word cannot say whether anyone sleeps, so the kernel must be asked every time.
    this->kernel_->wake(this->word_, 1);
  }

  // Every unlock wakes, so a thread moved onto this word by a requeue is always woken.
  void lock_contended(std::source_location site = std::source_location::current()) { lock(site); }
};

// The unlock of both three-state mutexes (Drepper's takes 2 and 3).
template <Platform P, FutexKernel<P> K>
class ThreeStateMutexBase : public FutexMutexBase<P, K> {
 public:
  using FutexMutexBase<P, K>::FutexMutexBase;

  void unlock() {
    this->note(LockNote::release);  // before the decrement that may free it
    // From 1 the decrement frees the lock and nobody needs waking. From 2 it leaves 1,
    // which still looks locked, so no newcomer can slip in between it and the store of 0;
    // then a sleeper must be woken, because one may have announced itself with the 2.
    if (this->word_.fetch_sub(1, std::memory_order_release) != kLocked) {
      this->word_.store(kUnlocked, std::memory_order_release);
      this->kernel_->wake(this->word_, 1);
    }
  }
};

// Drepper's "mutex, take 2": three states, so that unlock can tell whether to wake.
template <Platform P, FutexKernel<P> K = futex::FutexTable<P>>
class Mutex2 : public ThreeStateMutexBase<P, K> {
 public:
  using ThreeStateMutexBase<P, K>::ThreeStateMutexBase;

  void lock(std::source_location site = std::source_location::current()) {
    // The uncontended path: one CAS, and the state says nobody waits.
    if (const std::uint32_t c = this->acquire_if_free(kLocked); c != kUnlocked) contend(c, site);
    this->note(LockNote::acquire, site);
  }

  // Takes the lock in state 2, for a thread that may have been moved onto this word while
  // others still sleep on it (see condvar.hpp): its unlock must wake the next one.
  void lock_contended(std::source_location site = std::source_location::current()) {
    if (const std::uint32_t c = this->acquire_if_free(kContended); c != kUnlocked) contend(c, site);
    this->note(LockNote::acquire, site);
  }

 private:
  // `c` is the value a failed CAS found. Before sleeping, the word must say 2, or the holder's
  // unlock would not wake us: either it already does, or we turn its 1 into 2. If the CAS of
  // 1 to 2 fails because the lock was freed meanwhile, we do not sleep at all. Whoever wins
  // the lock from here takes it in state 2, since it cannot know whether others still sleep.
  void contend(std::uint32_t c, const std::source_location& site) {
    this->note(LockNote::wait, site);
    do {
      std::uint32_t seen = c;
      if (seen == kLocked) {
        // On failure the CAS leaves in `seen` what it found: 0 (freed: do not sleep) or 2.
        this->word_.compare_exchange_strong(seen, kContended, std::memory_order_relaxed);
      }
      if (seen != kUnlocked) this->kernel_->wait(this->word_, kContended);
      c = kUnlocked;  // a failed CAS below stores the value it found here
    } while (!this->word_.compare_exchange_strong(c, kContended, std::memory_order_acquire));
  }
};

// Drepper's "mutex, take 3": the final version. The contended path exchanges 2 into the word
// unconditionally: the exchange both announces a sleeper and, if it returns 0, takes the
// lock (in state 2, conservatively), so one atomic operation does what take 2 needed up to
// two CASes for.
template <Platform P, FutexKernel<P> K = futex::FutexTable<P>>
class Mutex3 : public ThreeStateMutexBase<P, K> {
 public:
  using ThreeStateMutexBase<P, K>::ThreeStateMutexBase;

  void lock(std::source_location site = std::source_location::current()) {
    std::uint32_t c = this->acquire_if_free(kLocked);
    if (c != kUnlocked) {
      this->note(LockNote::wait, site);
      // Someone holds it. If the word is already 2 there is no need to write it again.
      if (c != kContended) c = this->word_.exchange(kContended, std::memory_order_acquire);
      sleep_until_acquired(c);
    }
    this->note(LockNote::acquire, site);
  }

  // Takes the lock in state 2 (see Mutex2::lock_contended); the exchange is the whole path.
  void lock_contended(std::source_location site = std::source_location::current()) {
    std::uint32_t c = this->word_.exchange(kContended, std::memory_order_acquire);
    if (c != kUnlocked) {
      this->note(LockNote::wait, site);
      sleep_until_acquired(c);
    }
    this->note(LockNote::acquire, site);
  }

 private:
  // `c` is what our exchange of 2 found: 0 means we hold the lock now (in state 2). Anything
  // else means the holder will see 2 when it unlocks and wake someone, so sleeping is safe;
  // a wait that fails because the word is no longer 2 just tries the exchange again.
  void sleep_until_acquired(std::uint32_t c) {
    while (c != kUnlocked) {
      this->kernel_->wait(this->word_, kContended);
      c = this->word_.exchange(kContended, std::memory_order_acquire);
    }
  }
};

}  // namespace lockstep::usync
