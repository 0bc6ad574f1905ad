// The FIFO of sleeping waiters that the sleeping locks (sleep_mutex.hpp, sleep_rwlock.hpp,
// range_lock.hpp) share. Each lock keeps its state and this list under one spinlock, the
// "interlock", as FreeBSD's sleep locks keep theirs under a sleepqueue chain lock and Linux's
// struct mutex under its wait_lock. A waiter's node lives on its own stack (platform memory,
// like Linux's struct mutex_waiter), and links are P::address_of values, so they mean the same
// in every run of the simulator.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/platform.hpp"

namespace lockstep {

enum class LockMode : std::uint32_t { shared = 0, exclusive = 1 };

template <Platform P>
struct SleepWaiter {
  template <class T>
  using Shared = typename P::template Shared<T>;

  Shared<std::uint64_t> next{0};
  Shared<std::uint64_t> thread{0};  // P::Thread, as bits
  Shared<std::uint64_t> start{0};   // range locks: the byte range [start, end)
  Shared<std::uint64_t> end{0};
  Shared<std::uint32_t> mode{0};            // LockMode
  Shared<std::uint32_t> queued_granted{0};  // range locks: granted while still listed
  // 0 while the waiter sleeps for the lock. The granter reads everything it needs from the
  // node before this release store, its last touch: once the waiter sees 1 it returns and
  // its stack frame, this node, may be gone.
  typename P::template Atomic<std::uint32_t> granted{0};

  void prepare(LockMode m) {
    next.store(0);
    mode.store(static_cast<std::uint32_t>(m));
    granted.store(0, std::memory_order_relaxed);
    thread.store(bits_of(P::self()));
  }

  // Sleeps until a granter hands the lock over. park() may return early (a permit left by an
  // earlier unpark), so the flag, not the wakeup, says the lock is ours.
  void sleep() {
    while (granted.load(std::memory_order_acquire) == 0) P::park();
  }

  // Hands the lock to this waiter and wakes it; the caller holds the interlock.
  void grant() {
    const typename P::Thread t = thread_of(thread.load());
    granted.store(1, std::memory_order_release);
    P::unpark(t);
  }

  static std::uint64_t bits_of(typename P::Thread t) {
    static_assert(std::is_trivially_copyable_v<typename P::Thread> && sizeof(typename P::Thread) <= 8);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &t, sizeof t);
    return bits;
  }
  static typename P::Thread thread_of(std::uint64_t bits) {
    typename P::Thread t{};
    std::memcpy(&t, &bits, sizeof t);
    return t;
  }
};

// A singly linked FIFO of waiters. Every method needs the owning lock's interlock held.
template <Platform P>
class WaiterList {
 public:
  using Waiter = SleepWaiter<P>;

  static Waiter* at(std::uint64_t address) { return static_cast<Waiter*>(P::pointer_to(address)); }

  bool empty() const { return head_.load() == 0; }
  Waiter* front() const { return empty() ? nullptr : at(head_.load()); }
  Waiter* next_of(const Waiter& w) const {
    const std::uint64_t n = w.next.load();
    return n == 0 ? nullptr : at(n);
  }

  void push_back(Waiter& w) {
    const std::uint64_t self = P::address_of(&w);
    const std::uint64_t tail = tail_.load();
    P::invariant([&] { return w.next.load() == 0 && tail != self; }, "a waiter queued twice on a waiter list");
    if (tail == 0) {
      head_.store(self);
    } else {
      at(tail)->next.store(self);
    }
    tail_.store(self);
  }

  void pop_front() {
    const std::uint64_t head = head_.load();
    P::invariant([&] { return head != 0; }, "pop_front of an empty waiter list");
    const std::uint64_t next = at(head)->next.load();
    head_.store(next);
    if (next == 0) tail_.store(0);
  }

  // Unlinks `w` wherever it is (range locks release from the middle of the list).
  void remove(Waiter& w) {
    const std::uint64_t self = P::address_of(&w);
    std::uint64_t prev = 0;
    for (std::uint64_t cur = head_.load(); cur != self; cur = at(cur)->next.load()) {
      // The end of the list without finding `w`: it was not on it (the walk would go on
      // through address 0).
      P::invariant([&] { return cur != 0; }, "a waiter removed from a waiter list it is not on");
      prev = cur;
    }
    const std::uint64_t next = w.next.load();
    if (prev == 0) {
      head_.store(next);
    } else {
      at(prev)->next.store(next);
    }
    if (next == 0) tail_.store(prev);
  }

 private:
  typename P::template Shared<std::uint64_t> head_{0};
  typename P::template Shared<std::uint64_t> tail_{0};
};

}  // namespace lockstep
