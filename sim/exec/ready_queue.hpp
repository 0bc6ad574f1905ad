#pragma once
// Timed mode's queue of threads on a CPU: earliest virtual time first, then the seeded tie
// key, so the order is total and a run is reproducible.
//
// A tournament tree: the entries sit in the leaves by value, and each inner node holds the
// earlier of its two children, so the root is the earliest. `exchange_top` lets the thread
// that just stepped either keep running, when it is still the earliest (the common case
// for a thread whose loads hit its L1 while others wait hundreds of ns on misses), or take
// the earliest thread's leaf and replay the matches up from it: one comparison a level,
// where a binary heap's sift makes two (the earlier child, then the moving entry).
//
// This is the timed engine's hottest loop: a 32-thread run replays on 45% of steps on
// barcelona-8s and on 93-99% of them on nehalem-2s and the flat machine (which runs 3-5%
// faster than with the branch-free heap before it; the others within 2%). The tree has as
// many leaves as the most threads ever queued, rounded up to a power of two, so 16 queued
// threads replay 4 levels. An entry is 16 bytes that compare as one 128-bit number
// (clock, then tie key), with the thread id in the tie key's low bits: keys are unique (a
// thread is queued once), the comparison is a compare and a subtract with borrow, and no
// branch of a replay depends on the data. Leaves without a thread hold a sentinel later
// than everything. Which leaf a thread gets changes nothing the queue returns, since the
// earliest entry is unique.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/exec/memory.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::sim {

class ReadyEntry {
 public:
  static constexpr unsigned kThreadBits = 10;
  static_assert(kMaxThreads <= (std::size_t{1} << kThreadBits), "the thread id must fit the tie key's low bits");
  static constexpr std::uint64_t kThreadMask = (std::uint64_t{1} << kThreadBits) - 1;

  constexpr ReadyEntry() = default;
  // `tie_draw` is the thread's seeded tie key (Rng::key); its top 54 bits order threads with equal clocks,
  // then the thread id does. (Ordering by the whole draw, then the id, differs only when two
  // draws agree in their top 54 bits.)
  constexpr ReadyEntry(std::uint64_t clock_ns, std::uint64_t tie_draw, ThreadId thread)
      : clock_ns_(clock_ns), tie_((tie_draw & ~kThreadMask) | (thread & kThreadMask)) {}

  ThreadId thread() const { return static_cast<ThreadId>(tie_ & kThreadMask); }
  std::uint64_t clock_ns() const { return clock_ns_; }

  // Strictly earlier in the run order.
  friend bool operator<(const ReadyEntry& a, const ReadyEntry& b) {
    return key(a.clock_ns_, a.tie_) < key(b.clock_ns_, b.tie_);
  }

 private:
  friend class ReadyQueue;
  __extension__ typedef unsigned __int128 Key;  // GCC and Clang both have it
  // The run order as one 128-bit number: a compare and a subtract with borrow.
  static Key key(std::uint64_t clock_ns, std::uint64_t tie) { return (Key{clock_ns} << 64) | tie; }

  std::uint64_t clock_ns_ = 0;
  std::uint64_t tie_ = 0;
};

class ReadyQueue {
 public:
  bool empty() const { return size_ == 0; }
  void clear() {
    std::fill(nodes_.begin(), nodes_.end(), kLatest);
    free_.clear();
    for (std::size_t slot = leaves_; slot-- > 0;) free_.push_back(static_cast<std::uint32_t>(slot));
    size_ = 0;
  }

  void push(const ReadyEntry& e) {
    if (free_.empty()) grow();
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    ++size_;
    slot_of_[e.thread()] = slot;
    place(slot, e);
  }

  // The earliest entry's clock (the queue is not empty).
  std::uint64_t earliest_clock() const { return nodes_[1].clock_ns(); }
  // Removes and returns the earliest thread.
  ThreadId pop() {
    const ThreadId top = nodes_[1].thread();
    const std::uint32_t slot = slot_of_[top];
    --size_;
    free_.push_back(slot);
    place(slot, kLatest);
    return top;
  }

  // What push(e) then pop() would return, without touching the queue when `e` is earliest.
  ThreadId exchange_top(const ReadyEntry& e) {
    if (empty() || e < nodes_[1]) return e.thread();
    const ThreadId top = nodes_[1].thread();
    const std::uint32_t slot = slot_of_[top];
    slot_of_[e.thread()] = slot;
    place(slot, e);
    return top;
  }

 private:
  static constexpr ReadyEntry kLatest{std::numeric_limits<std::uint64_t>::max(),
                                      std::numeric_limits<std::uint64_t>::max(), kNoThread};

  // Puts `e` in leaf `slot` and replays the matches on its way to the root: each node holds
  // the earlier of its two children, so the root is the earliest of all.
  void place(std::size_t slot, const ReadyEntry& e) {
    ReadyEntry* const n = nodes_.data();
    std::size_t i = leaves_ + slot;
    n[i] = e;
    // The winner so far stays in two general registers and each match is a compare, a
    // subtract with borrow and two conditional moves, a chain of three cycles from level to
    // level. (As a 16-byte value, which is what the compiler makes of plain C++, it went
    // through the vector unit and back at every level, about as many instructions but a
    // chain of some fifteen cycles; the flat machine's 32-thread run, which replays on 99%
    // of its steps, ran 3.7% faster with this.) Reading the winner back from the node just
    // written would put a store-to-load forwarding delay on every level; the siblings'
    // addresses do not depend on the matches, so their loads start early.
    std::uint64_t clock = e.clock_ns_;
    std::uint64_t tie = e.tie_;
    for (; i > 1; i >>= 1) {
      take_if_earlier(n[i ^ 1].clock_ns_, n[i ^ 1].tie_, clock, tie);
      n[i >> 1].clock_ns_ = clock;
      n[i >> 1].tie_ = tie;
    }
  }

  // (clock, tie) = (other_clock, other_tie) if that is earlier, without a branch.
  static void take_if_earlier(std::uint64_t other_clock, std::uint64_t other_tie, std::uint64_t& clock,
                              std::uint64_t& tie) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    std::uint64_t scratch;
    asm("cmp %[tie], %[other_tie]\n\t"  // the low halves: sets the borrow
        "mov %[other_clock], %[scratch]\n\t"
        "sbb %[clock], %[scratch]\n\t"  // carry: other < this, as 128-bit numbers
        "cmovc %[other_clock], %[clock]\n\t"
        "cmovc %[other_tie], %[tie]"
        : [clock] "+r"(clock), [tie] "+r"(tie), [scratch] "=&r"(scratch)
        : [other_clock] "r"(other_clock), [other_tie] "r"(other_tie)
        : "cc");
#else
    const bool other_earlier = ReadyEntry::key(other_clock, other_tie) < ReadyEntry::key(clock, tie);
    clock = other_earlier ? other_clock : clock;
    tie = other_earlier ? other_tie : tie;
#endif
  }

  // Called when every leaf is taken: twice the leaves, the old ones first.
  void grow() {
    const std::size_t old = leaves_;
    leaves_ = old == 0 ? 2 : 2 * old;
    std::vector<ReadyEntry> nodes(2 * leaves_, kLatest);
    for (std::size_t slot = 0; slot < old; ++slot) nodes[leaves_ + slot] = nodes_[old + slot];
    for (std::size_t i = leaves_ - 1; i >= 1; --i)
      nodes[i] = nodes[2 * i + 1] < nodes[2 * i] ? nodes[2 * i + 1] : nodes[2 * i];
    nodes_.swap(nodes);
    slot_of_.resize(std::size_t{1} << ReadyEntry::kThreadBits);
    for (std::size_t slot = leaves_; slot-- > old;) free_.push_back(static_cast<std::uint32_t>(slot));
  }

  std::size_t size_ = 0;
  std::size_t leaves_ = 0;
  std::vector<ReadyEntry> nodes_;       // [1] the root ... [leaves_ + slot] the leaves
  std::vector<std::uint32_t> slot_of_;  // per thread: its leaf while it is queued
  std::vector<std::uint32_t> free_;     // leaves holding no thread
};

}  // namespace lockstep::sim
