// A sleeping mutex: a contended locker sleeps (P::park) instead of spinning, and the holder
// hands the lock directly to the oldest waiter (FIFO), as FreeBSD's sx/lockmgr sleep locks
// and the page lock of the seed's Linux ("an exclusive lock on the page is used until the
// data is valid") put a thread to sleep. Direct hand-off keeps it fair: a newcomer cannot
// barge in between the release and the wakee's return.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>

#include "core/platform.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/waiter_list.hpp"

namespace lockstep {

template <Platform P>
class SleepMutex {
 public:
  void lock(std::source_location site = std::source_location::current()) {
    interlock_.lock();
    if (held_.load() == 0 && waiters_.empty()) {
      held_.store(1);
      note(LockNote::acquire, site);
      interlock_.unlock();
      return;
    }
    note(LockNote::wait, site);
    Local<P, SleepWaiter<P>> waiter;  // on this thread's stack (P::Local)
    SleepWaiter<P>& self = *waiter;
    self.prepare(LockMode::exclusive);
    waiters_.push_back(self);
    interlock_.unlock();
    self.sleep();  // the unlocker left held_ at 1 for us
    note(LockNote::acquire, site);
  }

  bool try_lock(std::source_location site = std::source_location::current()) {
    interlock_.lock();
    const bool free = held_.load() == 0;
    if (free) {
      held_.store(1);
      note(LockNote::acquire, site);
    }
    interlock_.unlock();
    return free;
  }

  // Its words' names for P::label (docs/traces.md, "Names"): traces, counterexamples and the
  // lock profile then tell the lock's own word from its interlock.
  std::array<LabelField, 3> label_fields() const {
    return {label_field(*this, interlock_, "interlock"), label_field(*this, held_, "held"),
            label_field(*this, waiters_, "waiters")};
  }

  void unlock() {
    note(LockNote::release, {});  // before the hand-off, so the next holder's acquire follows it
    interlock_.lock();
    if (SleepWaiter<P>* next = waiters_.front()) {
      waiters_.pop_front();
      next->grant();  // held_ stays 1: the lock passes to `next`
    } else {
      held_.store(0);
    }
    interlock_.unlock();
  }

 private:
  // Trace notes name the mutex by its held_ word: the interlock, at the object's start,
  // reports its own holds there.
  void note(LockNote what, const std::source_location& site) { P::note_lock(&held_, what, false, site); }

  TicketLock<P> interlock_;
  typename P::template Shared<std::uint32_t> held_{0};
  WaiterList<P> waiters_;
};

}  // namespace lockstep
