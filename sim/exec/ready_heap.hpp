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
// comparison is a compare and a subtract with borrow, and no branch depends on the data
// except the one that ends a sift. A sentinel later than everything sits after the last
// entry, so choosing the earlier child needs no bounds check.
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
  bool empty() const { return size() == 0; }
  void clear() { entries_.assign(1, kLatest); }

  void push(const ReadyEntry& e) {
    entries_.back() = e;          // where the sentinel was
    entries_.push_back(kLatest);  // the new sentinel
    sift_up(size() - 1);
  }

  // Removes and returns the earliest thread.
  ThreadId pop() {
    const ThreadId top = entries_.front().thread();
    const std::size_t last = size() - 1;
    entries_.front() = entries_[last];
    entries_[last] = kLatest;  // the new sentinel; the old one goes
    entries_.pop_back();
    if (!empty()) sift_down(0);
    return top;
  }

  // What push(e) then pop() would return, without touching the heap when `e` is earliest.
  ThreadId exchange_top(const ReadyEntry& e) {
    if (empty() || e < entries_.front()) return e.thread();
    const ThreadId top = entries_.front().thread();
    entries_.front() = e;
    sift_down(0);
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

  void sift_down(std::size_t i) {
    ReadyEntry* const e = entries_.data();
    const ReadyEntry moving = e[i];
    const std::size_t n = size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      // e[n] is the sentinel: when child + 1 == n it is never the earlier one.
      child += static_cast<std::size_t>(e[child + 1] < e[child]);
      if (!(e[child] < moving)) break;
      e[i] = e[child];
      i = child;
    }
    e[i] = moving;
  }

  std::size_t size() const { return entries_.size() - 1; }

  std::vector<ReadyEntry> entries_{kLatest};  // the entries, then the sentinel
};

}  // namespace lockstep::sim
