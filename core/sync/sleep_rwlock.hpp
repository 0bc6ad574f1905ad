// A sleeping reader-writer lock: any number of shared holders or one exclusive holder;
// contended lockers sleep in one FIFO queue. This is the inode lock of docs/sources.md section 3
// (4.3BSD/FreeBSD's shared vnode lock, illumos' vnode rwlock, Linux's i_rwsem) and, taken
// exclusive for everything, 7th Edition's inode lock.
//
// Grants are FIFO: a shared locker queues behind a waiting exclusive one instead of joining
// the readers already inside (no writer starvation), and a release grants from the head of
// the queue, a run of shared waiters together or one exclusive waiter.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>

#include "core/platform.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/waiter_list.hpp"

namespace lockstep {

template <Platform P>
class SleepRwLock {
 public:
  void lock_shared(std::source_location site = std::source_location::current()) { acquire(LockMode::shared, site); }
  void lock(std::source_location site = std::source_location::current()) { acquire(LockMode::exclusive, site); }
  void lock(LockMode mode, std::source_location site = std::source_location::current()) { acquire(mode, site); }

  void unlock_shared() {
    note(LockNote::release, LockMode::shared, {});  // before any grant, so the grantee's acquire follows it
    interlock_.lock();
    readers_.store(readers_.load() - 1);
    grant_waiters();
    interlock_.unlock();
  }

  void unlock() {
    note(LockNote::release, LockMode::exclusive, {});
    interlock_.lock();
    writer_.store(0);
    grant_waiters();
    interlock_.unlock();
  }

  void unlock(LockMode mode) { mode == LockMode::shared ? unlock_shared() : unlock(); }

  // Its words' names for P::label (docs/traces.md, "Names"): traces, counterexamples and the
  // lock profile then tell the lock's own word from its interlock.
  std::array<LabelField, 4> label_fields() const {
    return {label_field(*this, interlock_, "interlock"), label_field(*this, readers_, "readers"),
            label_field(*this, writer_, "writer"), label_field(*this, waiters_, "waiters")};
  }

 private:
  bool compatible(LockMode mode) const {
    if (writer_.load() != 0) return false;
    return mode == LockMode::shared || readers_.load() == 0;
  }

  void take(LockMode mode) {
    if (mode == LockMode::shared) {
      readers_.store(readers_.load() + 1);
    } else {
      writer_.store(1);
    }
  }

  void acquire(LockMode mode, const std::source_location& site) {
    interlock_.lock();
    if (waiters_.empty() && compatible(mode)) {
      take(mode);
      note(LockNote::acquire, mode, site);
      interlock_.unlock();
      return;
    }
    note(LockNote::wait, mode, site);
    Local<P, SleepWaiter<P>> waiter;  // on this thread's stack (P::Local)
    SleepWaiter<P>& self = *waiter;
    self.prepare(mode);
    waiters_.push_back(self);
    interlock_.unlock();
    self.sleep();  // the granter counted us in before waking us
    note(LockNote::acquire, mode, site);
  }

  // Trace notes name the lock by its readers_ word: the interlock, at the object's start,
  // reports its own holds there.
  void note(LockNote what, LockMode mode, const std::source_location& site) {
    P::note_lock(&readers_, what, mode == LockMode::shared, site);
  }

  // Grants from the head while the head is compatible: a run of readers, or one writer.
  void grant_waiters() {
    while (SleepWaiter<P>* w = waiters_.front()) {
      const auto mode = static_cast<LockMode>(w->mode.load());
      if (!compatible(mode)) return;
      take(mode);
      waiters_.pop_front();
      w->grant();
      if (mode == LockMode::exclusive) return;
    }
  }

  TicketLock<P> interlock_;
  typename P::template Shared<std::uint32_t> readers_{0};
  typename P::template Shared<std::uint32_t> writer_{0};
  WaiterList<P> waiters_;
};

}  // namespace lockstep
