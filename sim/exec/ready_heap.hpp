#pragma once
// Timed mode's queue of threads on a CPU: earliest virtual time first, then the seeded tie
// key, then the thread id, so the order is total and a run is reproducible.
//
// The keys live in the heap by value (no indirection while sifting), and `exchange_top`
// lets the thread that just stepped either keep running, when it is still the earliest
// (the common case for a spinning thread whose loads hit its L1 while others wait hundreds
// of ns on misses), or swap places with the top in one sift instead of a push and a pop.
#include <cstdint>
#include <vector>

#include "sim/scheduler.hpp"

namespace lockstep::sim {

struct ReadyEntry {
  std::uint64_t clock_ns = 0;
  std::uint64_t tie_key = 0;
  ThreadId thread = 0;

  // Strictly earlier in the run order.
  friend bool operator<(const ReadyEntry& a, const ReadyEntry& b) {
    if (a.clock_ns != b.clock_ns) return a.clock_ns < b.clock_ns;
    if (a.tie_key != b.tie_key) return a.tie_key < b.tie_key;
    return a.thread < b.thread;
  }
};

class ReadyHeap {
 public:
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

  void push(const ReadyEntry& e) {
    entries_.push_back(e);
    sift_up(entries_.size() - 1);
  }

  // Removes and returns the earliest thread.
  ThreadId pop() {
    const ThreadId top = entries_.front().thread;
    entries_.front() = entries_.back();
    entries_.pop_back();
    if (!entries_.empty()) sift_down(0);
    return top;
  }

  // What push(e) then pop() would return, without touching the heap when `e` is earliest.
  ThreadId exchange_top(const ReadyEntry& e) {
    if (entries_.empty() || e < entries_.front()) return e.thread;
    const ThreadId top = entries_.front().thread;
    entries_.front() = e;
    sift_down(0);
    return top;
  }

 private:
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
    const ReadyEntry moving = entries_[i];
    const std::size_t n = entries_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && entries_[child + 1] < entries_[child]) ++child;
      if (!(entries_[child] < moving)) break;
      entries_[i] = entries_[child];
      i = child;
    }
    entries_[i] = moving;
  }

  std::vector<ReadyEntry> entries_;
};

}  // namespace lockstep::sim
