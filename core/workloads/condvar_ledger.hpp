// POSIX's promise for condition variables, checked at the interface, independently of how a
// condvar is built: pthread_cond_signal unblocks at least one of the threads blocked on the
// condvar when it is called (if any are), pthread_cond_broadcast all of them (POSIX.1-2017,
// pthread_cond_broadcast; docs/bugs.md). A thread program's cond_wait, cond_signal and
// cond_broadcast ops are recorded here in the order they happen (a tick per record) and the
// history is judged when the execution ends or gets stuck:
//
//   A signal issued under the waits' mutex M knows exactly who is blocked: a wait that began
//   (holding M) before the signal took M had released M inside cond_wait by then, and one that
//   ended had retaken M, so it ended before the signal or after it. Every such signal that
//   finds waits blocked must unblock one of them: a wait that ended after it. Unblocked
//   threads are no longer blocked, so signals need distinct waits. If no assignment of
//   distinct waits covers every such signal (a bipartite matching, found by augmenting
//   paths), some signal unblocked nobody while a thread was blocked: a lost wakeup. A
//   broadcast under M must see every wait blocked at its call end.
//
// Spurious wakeups, which POSIX allows, only add waits that could be assigned, never remove
// one, so they cannot make the rule report. Signals not issued under M are not judged (who was
// blocked at their call is not known). Natively the threads record at once, so the record
// is guarded by a host mutex (no critical section makes a P:: call; on the simulator a fiber
// never switches while it holds it).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace lockstep {

class CondvarLedger {
 public:
  struct Wait {
    std::size_t thread = 0;
    int condvar = 0;
    int mutex = 0;
    std::uint64_t begun = 0;
    std::optional<std::uint64_t> ended;
    const std::string* where = nullptr;
  };
  struct Signal {
    std::size_t thread = 0;
    int condvar = 0;
    bool broadcast = false;
    std::optional<int> under;  // the mutex its thread held, if any of the condvar's
    std::uint64_t begun = 0;
    std::uint64_t ended = 0;
    const std::string* where = nullptr;
  };
  struct Lost {
    const Signal* signal = nullptr;    // a signal that unblocked none of the waits blocked at its call
    std::vector<const Wait*> blocked;  // those waits
  };

  // Returns the wait's index, for wait_ended.
  std::size_t wait_begins(std::size_t thread, int condvar, int mutex, const std::string* where) {
    const std::lock_guard guard(mutex_);
    waits_.push_back(Wait{thread, condvar, mutex, ++tick_, std::nullopt, where});
    return waits_.size() - 1;
  }
  void wait_ended(std::size_t index) {
    const std::lock_guard guard(mutex_);
    waits_[index].ended = ++tick_;
  }
  // Returns the signal's index, for signal_ended.
  std::size_t signal_begins(std::size_t thread, int condvar, bool broadcast, std::optional<int> under,
                            const std::string* where) {
    const std::lock_guard guard(mutex_);
    signals_.push_back(Signal{thread, condvar, broadcast, under, ++tick_, 0, where});
    return signals_.size() - 1;
  }
  void signal_ended(std::size_t index) {
    const std::lock_guard guard(mutex_);
    signals_[index].ended = ++tick_;
  }

  // Whether program thread `thread` is inside a cond_wait (begun, not ended).
  bool waiting(std::size_t thread) const {
    const std::lock_guard guard(mutex_);
    for (const Wait& w : waits_)
      if (w.thread == thread && !w.ended) return true;
    return false;
  }

  void reset() {
    const std::lock_guard guard(mutex_);
    waits_.clear();
    signals_.clear();
    tick_ = 0;
  }

  // The first signal (or broadcast) the promise was broken for, or nothing.
  std::optional<Lost> lost_wakeup() const {
    const std::lock_guard guard(mutex_);
    std::vector<const Signal*> judged;
    std::vector<std::vector<std::size_t>> takers;  // per judged signal: waits it may have unblocked
    for (const Signal& s : signals_) {
      if (!s.under) continue;
      std::vector<const Wait*> blocked = blocked_at(s);
      if (blocked.empty()) continue;
      if (s.broadcast) {
        for (const Wait* w : blocked)
          if (!w->ended) return Lost{&s, blocked};
        continue;
      }
      judged.push_back(&s);
      takers.emplace_back();
      for (const Wait* w : blocked)
        if (w->ended) takers.back().push_back(static_cast<std::size_t>(w - waits_.data()));
    }
    // Kuhn's augmenting paths: the histories are tens of ops, so the quadratic bound is nothing.
    std::vector<std::optional<std::size_t>> owner(waits_.size());  // wait -> the signal it is assigned
    for (std::size_t s = 0; s < judged.size(); ++s) {
      std::vector<bool> seen(waits_.size(), false);
      if (!assign(s, takers, owner, seen)) return Lost{judged[s], blocked_at(*judged[s])};
    }
    return std::nullopt;
  }

 private:
  // The waits on s's condvar with s's mutex blocked when s was called (see the file comment).
  std::vector<const Wait*> blocked_at(const Signal& s) const {
    std::vector<const Wait*> out;
    for (const Wait& w : waits_)
      if (w.condvar == s.condvar && w.mutex == *s.under && w.begun < s.begun && !(w.ended && *w.ended < s.begun))
        out.push_back(&w);
    return out;
  }

  static bool assign(std::size_t s, const std::vector<std::vector<std::size_t>>& takers,
                     std::vector<std::optional<std::size_t>>& owner, std::vector<bool>& seen) {
    for (const std::size_t w : takers[s]) {
      if (seen[w]) continue;
      seen[w] = true;
      if (!owner[w] || assign(*owner[w], takers, owner, seen)) {
        owner[w] = s;
        return true;
      }
    }
    return false;
  }

  mutable std::mutex mutex_;
  std::vector<Wait> waits_;
  std::vector<Signal> signals_;
  std::uint64_t tick_ = 0;
};

}  // namespace lockstep
