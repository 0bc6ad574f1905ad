#pragma once
// Timed mode's queue of threads on a CPU: earliest virtual time first, then the seeded tie
// key, so the order is total and a run is reproducible.
//
// The keys live in the heap by value (no indirection while sifting), and `exchange_top`
// lets the thread that just stepped either keep running, when it is still the earliest
// (the common case for a spinning thread whose loads hit its L1 while others wait hundreds
// of ns on misses), or swap places with the top in one sift instead of a push and a pop.
//
// This is the timed engine's hottest loop: a 32-thread run sifts on almost every step. So an
// entry is 16 bytes that compare as one 128-bit number (clock, then tie key), with the
// thread id in the tie key's low bits: keys are unique (a thread is queued once), the
// comparison is a compare and a subtract with borrow, and no branch of a sift depends on
// the data. Sentinels later than everything fill the slots after the last entry, so
// choosing the earlier child needs no bounds check.
#include <algorithm>
#include <bit>
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
  // `tie_draw` is the seeded PRNG's draw; its top 54 bits order threads with equal clocks,
  // then the thread id does. (Ordering by the whole draw, then the id, differs only when two
  // draws agree in their top 54 bits.)
  constexpr ReadyEntry(std::uint64_t clock_ns, std::uint64_t tie_draw, ThreadId thread)
      : clock_ns_(clock_ns), tie_((tie_draw & ~kThreadMask) | (thread & kThreadMask)) {}

  ThreadId thread() const { return static_cast<ThreadId>(tie_ & kThreadMask); }
  std::uint64_t clock_ns() const { return clock_ns_; }

  // Strictly earlier in the run order.
  friend bool operator<(const ReadyEntry& a, const ReadyEntry& b) {
    __extension__ typedef unsigned __int128 Key;  // GCC and Clang both have it
    return ((Key{a.clock_ns_} << 64) | a.tie_) < ((Key{b.clock_ns_} << 64) | b.tie_);
  }

 private:
  std::uint64_t clock_ns_ = 0;
  std::uint64_t tie_ = 0;
};

class ReadyHeap {
 public:
  bool empty() const { return size_ == 0; }
  void clear() {
    std::fill_n(entries_.begin(), std::min(entries_.size(), size_), kLatest);
    size_ = 0;
  }

  void push(const ReadyEntry& e) {
    ++size_;
    if (entries_.size() < 2 * size_ + 1) entries_.resize(2 * size_ + 1, kLatest);
    entries_[size_ - 1] = e;
    sift_up(size_ - 1);
  }

  // Removes and returns the earliest thread.
  ThreadId pop() {
    const ThreadId top = entries_.front().thread();
    --size_;
    entries_.front() = entries_[size_];
    entries_[size_] = kLatest;
    sift_down();
    return top;
  }

  // What push(e) then pop() would return, without touching the heap when `e` is earliest.
  ThreadId exchange_top(const ReadyEntry& e) {
    if (empty() || e < entries_.front()) return e.thread();
    const ThreadId top = entries_.front().thread();
    entries_.front() = e;
    sift_down();
    return top;
  }

 private:
  static constexpr ReadyEntry kLatest{std::numeric_limits<std::uint64_t>::max(),
                                      std::numeric_limits<std::uint64_t>::max(), kNoThread};

  void sift_up(std::size_t i) {
    const ReadyEntry moving = entries_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!(moving < entries_[parent])) break;
      entries_[i] = entries_[parent];
      i = parent;
    }
    entries_[i] = moving;
  }

  // Moves the root down to its place. Every slot from size_ to 2 * size_ is the sentinel, so
  // a node's children can be read without a bounds check, and a node whose children are
  // both later stays put: the loop runs the heap's depth every time, each level choosing by
  // index arithmetic, so no branch depends on the keys. (The usual loop exits where the
  // entry lands, which in a 32-thread run changes from step to step: a mispredicted branch
  // on most sifts. This one does a few more comparisons; the flat machine, where the heap is
  // the largest cost, runs 7% faster.)
  void sift_down() {
    ReadyEntry* const e = entries_.data();
    const ReadyEntry moving = e[0];
    std::size_t hole = 0;
    for (int level = std::bit_width(size_); level > 1; --level) {
      std::size_t child = 2 * hole + 1;
      child += static_cast<std::size_t>(e[child + 1] < e[child]);
      const std::size_t from = e[child] < moving ? child : hole;
      e[hole] = e[from];
      hole = from;
    }
    e[hole] = moving;
  }

  std::size_t size_ = 0;
  std::vector<ReadyEntry> entries_;  // the heap's size_ entries, then sentinels up to 2 * size_
};

}  // namespace lockstep::sim
