// MCS queue spinlock (Mellor-Crummey and Scott, 1991). Waiters form a FIFO queue of nodes
// that they bring themselves, and each spins on the flag in its own node. Handing the lock
// over is one store to the successor's node, so it moves one cacheline between two CPUs
// instead of bouncing the lock word among every waiter as a ticket or TTAS lock does. This is
// why the Linux queued spinlock (qspinlock, x86 since 4.2), which replaced the ticket lock
// of docs/sources.md section 1, queues its contended waiters on per-CPU MCS nodes.
//
// A node must live in platform memory: on the caller's stack (a simulated thread's stack is
// simulated memory) or from P::allocate, never on the host heap (the simulator refuses to
// give such a node an address). It must stay alive and unmoved from lock(node) until
// unlock(node) returns, and serve one lock at a time.
#pragma once

#include <cstdint>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
struct McsNode {
  typename P::template Atomic<std::uint64_t> next{0};    // the successor, encoded as in McsLock
  typename P::template Atomic<std::uint32_t> locked{0};  // 1 while its owner waits for the lock
};

template <Platform P>
class McsLock {
 public:
  using Platform = P;
  using Node = McsNode<P>;

  // No step needs seq_cst, on x86-TSO or in C++: MCS has no store followed by a load of
  // another location whose order matters (Dekker's pattern, the one reordering TSO allows).
  // Every ordering between threads runs through an RMW on the tail, which x86 executes as a
  // locked instruction, or a release store read by an acquire load.

  void lock(Node& self, std::source_location site = std::source_location::current()) {
    // The initialising stores are published by the release half of the exchange: a
    // successor that finds this node in the tail acquires them before it links itself in,
    // so its link is never overwritten by this reset.
    self.next.store(0, std::memory_order_relaxed);
    self.locked.store(1, std::memory_order_relaxed);
    const std::uint64_t pred = tail_.exchange(encode(self), std::memory_order_acq_rel);
    if (pred != 0) {
      P::note_lock(this, LockNote::wait, false, site);
      // Release, so the predecessor's acquiring read of `next` also sees locked == 1 before
      // it clears it; otherwise the reset could land after the handover and strand this waiter.
      decode(pred).next.store(encode(self), std::memory_order_release);
      while (self.locked.load(std::memory_order_acquire) != 0) P::cpu_relax();
    }
    P::note_lock(this, LockNote::acquire, false, site);
  }

  bool try_lock(Node& self, std::source_location site = std::source_location::current()) {
    self.next.store(0, std::memory_order_relaxed);
    std::uint64_t expected = 0;
    const bool ok = tail_.compare_exchange_strong(expected, encode(self), std::memory_order_acq_rel);
    if (ok) P::note_lock(this, LockNote::acquire, false, site);
    return ok;
  }

  void unlock(Node& self) {
    // Noted first: the lock passes at one of the stores below, which the successor then reads.
    P::note_lock(this, LockNote::release, false, {});
    std::uint64_t next = self.next.load(std::memory_order_acquire);
    if (next == 0) {
      // No successor yet: free the lock if this node is still the tail. The release pairs
      // with the acquire of the next thread's exchange, which finds the tail empty.
      std::uint64_t expected = encode(self);
      if (tail_.compare_exchange_strong(expected, 0, std::memory_order_release)) return;
      // A thread swapped itself into the tail after `next` was read and is about to link
      // in; the lock is already its, so wait the few instructions until it has.
      while ((next = self.next.load(std::memory_order_acquire)) == 0) P::cpu_relax();
    }
    decode(next).locked.store(0, std::memory_order_release);
  }

  // True while some thread holds or waits for the lock, as the ticket lock's is_locked().
  bool is_locked() const { return tail_.load(std::memory_order_relaxed) != 0; }

 private:
  // A node is named by its platform address (a simulated one in the simulator, so traces do
  // not depend on where the host mapped the arena) with bit 0 set: simulated address 0 is
  // node 0's first allocation, and a node there must still read as queued, not as "free".
  static constexpr std::uint64_t kQueuedBit = 1;
  static_assert(alignof(Node) > kQueuedBit);

  static std::uint64_t encode(const Node& node) { return P::address_of(&node) | kQueuedBit; }
  static Node& decode(std::uint64_t code) { return *static_cast<Node*>(P::pointer_to(code & ~kQueuedBit)); }

  typename P::template Atomic<std::uint64_t> tail_{0};  // the last queued node (encoded); 0 when free
};

}  // namespace lockstep
