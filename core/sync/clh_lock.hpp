// CLH queue spinlock (Craig, 1993; Magnusson, Landin and Hagersten, 1994), the fifth lock of
// the SOSP'13 study beside TAS, TTAS, ticket and MCS. A waiter swaps its node into the tail
// and spins on its predecessor's node, which the predecessor clears to hand the lock over:
// as MCS, one line moves between two CPUs per handover, but a waiter needs no link from its
// predecessor, so it enqueues with one exchange and releases with one store (MCS may have to
// wait for its successor to link in). The price: a thread spins on a node another CPU wrote,
// a remote line on a machine without coherent caches (which is why MCS spins locally).
//
// Nodes recycle. A releaser keeps its predecessor's node, which no other thread references
// once it has acquired, as the node it enqueues next time; its own node stays queued for its
// successor to read. So a node moves between threads, and every node handed to this lock
// (the lock's own first one and each caller's) must stay alive, unmoved, for as long as the
// lock is used: a caller keeps one node per thread for the lock's life (the program
// workload's per-thread nodes, lock-counter's), never a node on a stack frame that ends.
//
// A caller's node is an MCS node, which is its first queue node (only `locked` is used),
// and on a line of its own the thread's two words that the classic lock keeps in
// registers: `mine`, the queue node it enqueues next (0: its own first one), and `pred`, its
// predecessor's while it holds the lock. They are apart because the queue node passes to
// other threads, whose successors spin on it: on one line, each critical section's writes
// would invalidate another thread's spinning copy. (A field of the lock would put a write
// on the tail's line into every critical section.) Being an MCS node, it is AnySpinlock's
// one Node for every kind. Queue nodes are named by their platform address with bit 0 set,
// as in McsLock: simulated address 0 is a real node.
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"
#include "core/sync/mcs_lock.hpp"

namespace lockstep {

template <Platform P>
struct alignas(kCacheLineBytes) ClhNode : McsNode<P> {
  alignas(kCacheLineBytes) typename P::template Atomic<std::uint64_t> mine{0};  // encoded; 0: this node
  typename P::template Atomic<std::uint64_t> pred{0};  // while holding: the predecessor's node, encoded
};

template <Platform P>
class ClhLock {
 public:
  using Platform = P;
  using Node = ClhNode<P>;

  ClhLock() { tail_.store(encode(first_), std::memory_order_relaxed); }  // first_ is free: locked == 0
  ClhLock(const ClhLock&) = delete;
  ClhLock& operator=(const ClhLock&) = delete;

  void lock(Node& self, std::source_location site = std::source_location::current()) {
    const std::uint64_t mine = queue_node(self);
    decode(mine).locked.store(1, std::memory_order_relaxed);
    // acq_rel: the release publishes locked == 1 to the successor that finds this node in the
    // tail; the acquire pairs with the predecessor's enqueue.
    const std::uint64_t pred = tail_.exchange(mine, std::memory_order_acq_rel);
    McsNode<P>& before = decode(pred);
    if (before.locked.load(std::memory_order_acquire) != 0) {
      P::note_lock(this, LockNote::wait, false, site);
      while (before.locked.load(std::memory_order_acquire) != 0) P::cpu_relax();
    }
    acquired(self, pred, site);
  }

  bool try_lock(Node& self, std::source_location site = std::source_location::current()) {
    std::uint64_t pred = tail_.load(std::memory_order_acquire);
    // The tail's node, once free, stays free until a thread enqueues behind it: only that
    // thread will own it, so a successful exchange of the tail finds it still free.
    if (decode(pred).locked.load(std::memory_order_acquire) != 0) return false;
    const std::uint64_t mine = queue_node(self);
    decode(mine).locked.store(1, std::memory_order_relaxed);
    if (!tail_.compare_exchange_strong(pred, mine, std::memory_order_acq_rel)) return false;
    acquired(self, pred, site);
    return true;
  }

  void unlock(Node& self) {
    P::note_lock(this, LockNote::release, false, {});
    const std::uint64_t pred = self.pred.load(std::memory_order_relaxed);
    const std::uint64_t mine = queue_node(self);
    self.mine.store(pred, std::memory_order_relaxed);  // recycled: enqueued next time
    decode(mine).locked.store(0, std::memory_order_release);
  }

  // True while some thread holds or waits for the lock.
  bool is_locked() const {
    return decode(tail_.load(std::memory_order_relaxed)).locked.load(std::memory_order_relaxed) != 0;
  }

 private:
  std::uint64_t queue_node(Node& self) const {
    const std::uint64_t mine = self.mine.load(std::memory_order_relaxed);
    return mine != 0 ? mine : encode(self);
  }
  // (`mine` needs no store: until the release recycles it, queue_node still derives it.)
  void acquired(Node& self, std::uint64_t pred, const std::source_location& site) {
    self.pred.store(pred, std::memory_order_relaxed);
    P::note_lock(this, LockNote::acquire, false, site);
  }
  static constexpr std::uint64_t kNodeBit = 1;
  static_assert(alignof(Node) > kNodeBit);
  static std::uint64_t encode(const McsNode<P>& node) { return P::address_of(&node) | kNodeBit; }
  // Queue nodes are read for `locked` alone, which every node has (the lock's first is one too).
  static McsNode<P>& decode(std::uint64_t code) { return *static_cast<McsNode<P>*>(P::pointer_to(code & ~kNodeBit)); }

  typename P::template Atomic<std::uint64_t> tail_{0};  // the last queued node (encoded)
  McsNode<P> first_;                                    // the queue's first node, free
};

}  // namespace lockstep
