// One way to hold any spinlock for a scope. Every lock kind takes a node of its own Node type
// (empty for ticket and TTAS, a queue node for MCS), so a design written against SpinGuard
// runs unchanged whichever kind it is configured with.
#pragma once

#include <concepts>
#include <source_location>

#include "core/platform.hpp"

namespace lockstep {

// A lock that takes its waiter's node: TicketLock, TtasLock, McsLock and AnySpinlock.
template <class L>
concept NodeLockable = requires(L& lock, typename L::Node& node) {
  typename L::Platform;
  { lock.lock(node, std::source_location::current()) } -> std::same_as<void>;
  { lock.try_lock(node) } -> std::same_as<bool>;
  { lock.unlock(node) } -> std::same_as<void>;
};

// Holds `lock` from construction to destruction. The node is the caller's frame object
// (P::Local), as a queue node must be platform memory. The guard can be neither copied nor
// moved, because a queued node must not change address while other threads may write to it.
template <NodeLockable Lock>
class SpinGuard {
 public:
  // `site` is the guard's own place in the design: what lock profiling reports.
  explicit SpinGuard(Lock& lock, std::source_location site = std::source_location::current()) : lock_(lock) {
    lock_.lock(*node_, site);
  }
  // noexcept(false): in the simulator the unlock is a step, and a step can end the execution
  // (the step bound, a violation); the engine then unwinds the thread's stack from that step
  // by an exception, which must be allowed out of this destructor.
  ~SpinGuard() noexcept(false) { lock_.unlock(*node_); }  // NOLINT(bugprone-exception-escape)
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;
  SpinGuard(SpinGuard&&) = delete;
  SpinGuard& operator=(SpinGuard&&) = delete;

 private:
  Lock& lock_;
  Local<typename Lock::Platform, typename Lock::Node> node_;
};

}  // namespace lockstep
