// A byte-range lock after FreeBSD's rangelocks (sys/kern/kern_rangelock.c, the 2013 version):
// every request, granted or waiting, sits in one FIFO list; a request is granted when it
// conflicts with no request queued before it. Two ranges conflict when they overlap and at
// least one is a write, so readers share, overlapping writers exclude each other, and writers
// of disjoint ranges run together, which is what docs/sources.md section 3 says range locks buy
// ("none, with concurrent non-overlapping writers") and what the seed asks for ("we can allow
// concurrent writers to the same file as long as they are non-overlapping").
//
// Because a request waits for every conflicting request before it, granted or not, grants
// are FIFO among conflicting requests: a stream of readers cannot starve a writer.
//
// The caller's node (on its stack) stays in the list from lock to unlock.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>

#include "core/platform.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/waiter_list.hpp"

namespace lockstep {

template <Platform P>
class RangeLock {
 public:
  using Node = SleepWaiter<P>;

  // Locks [start, end) for reading (shared) or writing (exclusive). end > start.
  void lock(Node& self, std::uint64_t start, std::uint64_t end, LockMode mode,
            std::source_location site = std::source_location::current()) {
    self.prepare(mode);
    self.start.store(start);
    self.end.store(end);
    self.queued_granted.store(0);
    interlock_.lock();
    list_.push_back(self);
    const bool free = !blocked(self);
    if (free) {
      self.queued_granted.store(1);
      P::invariant([&] { return !overlaps_a_grant(self); },
                   "a range lock granted a range that conflicts with one it granted");
    }
    note(free ? LockNote::acquire : LockNote::wait, mode, site);
    interlock_.unlock();
    if (!free) {
      self.sleep();
      note(LockNote::acquire, mode, site);
    }
  }

  void lock_read(Node& self, std::uint64_t start, std::uint64_t end,
                 std::source_location site = std::source_location::current()) {
    lock(self, start, end, LockMode::shared, site);
  }
  void lock_write(Node& self, std::uint64_t start, std::uint64_t end,
                  std::source_location site = std::source_location::current()) {
    lock(self, start, end, LockMode::exclusive, site);
  }
  void unlock_read(Node& self) { unlock(self, LockMode::shared); }
  void unlock_write(Node& self) { unlock(self, LockMode::exclusive); }

  // Its words' names for P::label (docs/traces.md, "Names"): traces, counterexamples and the
  // lock profile then tell the lock's own word from its interlock.
  std::array<LabelField, 2> label_fields() const {
    return {label_field(*this, interlock_, "interlock"), label_field(*this, list_, "requests")};
  }

  // `mode` is the one the range was locked in (the caller's; the node's copy is shared memory).
  void unlock(Node& self, LockMode mode) {
    note(LockNote::release, mode, {});  // before any grant, so a grantee's acquire follows it
    interlock_.lock();
    list_.remove(self);
    // Every waiter that no longer conflicts with an earlier request may go, in list order.
    for (Node* w = list_.front(); w != nullptr; w = list_.next_of(*w)) {
      if (w->queued_granted.load() != 0 || blocked(*w)) continue;
      w->queued_granted.store(1);
      P::invariant([&] { return !overlaps_a_grant(*w); },
                   "a range lock granted a range that conflicts with one it granted");
      w->grant();
    }
    interlock_.unlock();
  }

 private:
  // Trace notes name the lock by its request list: the interlock, at the object's start,
  // reports its own holds there. Writers of disjoint ranges hold it exclusive together.
  void note(LockNote what, LockMode mode, const std::source_location& site) {
    P::note_lock(&list_, what, mode == LockMode::shared, site);
  }

  static bool conflict(const Node& a, const Node& b) {
    const bool overlap = a.start.load() < b.end.load() && b.start.load() < a.end.load();
    const bool a_writes = a.mode.load() == static_cast<std::uint32_t>(LockMode::exclusive);
    return overlap && (a_writes || b.mode.load() == static_cast<std::uint32_t>(LockMode::exclusive));
  }

  // Whether a granted request other than `w`, anywhere in the list, conflicts with it (what
  // blocked() rules out by looking only before `w`, given that grants go in list order).
  bool overlaps_a_grant(const Node& w) const {
    for (Node* e = list_.front(); e != nullptr; e = list_.next_of(*e))
      if (e != &w && e->queued_granted.load() != 0 && conflict(*e, w)) return true;
    return false;
  }

  // Whether a request queued before `w` conflicts with it.
  bool blocked(const Node& w) const {
    for (Node* e = list_.front(); e != &w; e = list_.next_of(*e))
      if (conflict(*e, w)) return true;
    return false;
  }

  TicketLock<P> interlock_;
  WaiterList<P> list_;
};

}  // namespace lockstep
