// A hash bucket and the waiters queued on it. Linux's bucket is {waiters; lock; plist}: the
// list holds every task waiting on any futex that hashes here, most urgent priority first
// and FIFO within a priority (seed: "real-time tasks are queued in front of regular tasks,
// otherwise ordered as FIFO"). A waiter's node lives on its own stack, as Linux's futex_q
// lives on the waiting task's kernel stack; links are P::address_of values, so they mean the
// same in every run of the simulator.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/futex/futex_key.hpp"
#include "core/platform.hpp"

namespace lockstep::futex {

template <Platform P>
std::uint64_t thread_bits(typename P::Thread t) {
  static_assert(std::is_trivially_copyable_v<typename P::Thread> && sizeof(typename P::Thread) <= 8);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &t, sizeof t);
  return bits;
}

template <Platform P>
typename P::Thread thread_from_bits(std::uint64_t bits) {
  typename P::Thread t;
  std::memcpy(&t, &bits, sizeof t);
  return t;
}

template <Platform P>
struct FutexWaiter {
  template <class T>
  using Shared = typename P::template Shared<T>;

  Shared<std::uint64_t> next{0};
  Shared<std::uint64_t> prev{0};
  Shared<std::uint64_t> key_word{0};
  Shared<std::uint64_t> key_ptr{0};
  Shared<std::uint32_t> key_offset{0};
  Shared<std::uint32_t> priority{kDefaultPriority};
  Shared<std::uint64_t> thread{0};
  // 1 while queued. The waker unlinks the node, then clears this with a release store as its
  // last touch of the node (Linux clears q->lock_ptr the same way): once the waiter sees 0
  // it may return and its stack frame, this node, is gone.
  typename P::template Atomic<std::uint32_t> queued{0};

  void set_key(const FutexKey& k) {
    key_word.store(k.word);
    key_ptr.store(k.ptr);
    key_offset.store(k.offset);
  }
  bool has_key(const FutexKey& k) const {
    return key_word.load() == k.word && key_ptr.load() == k.ptr && key_offset.load() == k.offset;
  }
};

// `kChainApart`: the wait list starts a line of its own (Layout::split).
template <Platform P, class Lock, bool kChainApart = false>
struct FutexBucket {
  Lock lock;
  // Tasks queued here or on their way (incremented before taking the lock): what the wake
  // fast path reads to skip the lock (docs/sources.md section 1).
  typename P::template Atomic<std::uint32_t> waiters{0};
  alignas(kChainApart ? kCacheLineBytes : alignof(std::uint64_t))
      typename P::template Shared<std::uint64_t> head{0};  // most urgent waiter, 0 when empty
  typename P::template Shared<std::uint64_t> tail{0};

  static FutexWaiter<P>* at(std::uint64_t address) { return static_cast<FutexWaiter<P>*>(P::pointer_to(address)); }

  // Whether `w`, whose links are `prev` and `next`, is on this bucket's list.
  bool holds(const FutexWaiter<P>& w, std::uint64_t prev, std::uint64_t next) const {
    const std::uint64_t self = P::address_of(&w);
    return (prev != 0 ? at(prev)->next.load() : head.load()) == self &&
           (next != 0 ? at(next)->prev.load() : tail.load()) == self;
  }

  // Queues `w` after every waiter of the same or more urgent priority. Caller holds the lock.
  void enqueue(FutexWaiter<P>& w, std::uint32_t priority) {
    const std::uint64_t self = P::address_of(&w);
    w.priority.store(priority);
    std::uint64_t before = 0;  // the first waiter less urgent than `w`
    for (std::uint64_t cur = head.load(); cur != 0; cur = at(cur)->next.load()) {
      if (at(cur)->priority.load() > priority) {
        before = cur;
        break;
      }
    }
    const std::uint64_t after = before != 0 ? at(before)->prev.load() : tail.load();
    w.next.store(before);
    w.prev.store(after);
    if (after != 0) {
      at(after)->next.store(self);
    } else {
      head.store(self);
    }
    if (before != 0) {
      at(before)->prev.store(self);
    } else {
      tail.store(self);
    }
  }

  // Unlinks `w`. Caller holds the lock.
  void unlink(FutexWaiter<P>& w) {
    const std::uint64_t next = w.next.load();
    const std::uint64_t prev = w.prev.load();
    // Unlinking a waiter from a bucket it is not on would corrupt both lists (Linux's
    // __futex_unqueue warns on the same: WARN_ON_ONCE(plist_node_empty(&q->list))).
    P::invariant([&] { return holds(w, prev, next); }, "a futex waiter unlinked from a bucket it is not queued on");
    if (prev != 0) {
      at(prev)->next.store(next);
    } else {
      head.store(next);
    }
    if (next != 0) {
      at(next)->prev.store(prev);
    } else {
      tail.store(prev);
    }
  }
};

}  // namespace lockstep::futex
