// The futex calls of one execution of thread programs, recorded so that an execution that
// stops with threads asleep can be judged. docs/sources.md section 1 states the lost wakeup so
// that a checker can decide it: at quiescence a waiter sleeps on word w, w no longer holds the
// value it waited for, and some wake(w, n) woke fewer than n threads. Deciding that needs
// what only the caller of the futex knows: who sleeps in which wait (word, expected value)
// and what each wake asked for and got. The ledger is the futex kernel of a program's futex
// ops and of its futex mutexes (usync::FutexKernel), in front of one FutexTable.
//
// Calls are attributed to program threads through P::self(), bound as each thread starts,
// and to the op that made them through at(), which the interpreter sets before each op.
//
// Natively (`lockstep native` on thread programs, docs/model-checking.md "Native litmus runs")
// the program threads really run at once, so the shared record (the wakes, the requeues, who
// is who) is guarded by a host mutex. No critical section makes a P:: call, so on the
// simulator, whose threads are fibers of one host thread, a fiber never switches while it
// holds the mutex, and the order of the records is still the execution's.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"

namespace lockstep {

template <Platform P>
class FutexLedger {
 public:
  using Word = typename P::template Atomic<std::uint32_t>;
  using Thread = typename P::Thread;

  // What makes a stuck execution a lost wakeup: the sleeper's wait and the wake that woke
  // too few, each with its program thread (an index) and the op it came from.
  struct LostWakeup {
    std::size_t sleeper = 0;
    const Word* word = nullptr;
    std::uint32_t expected = 0;
    const std::string* wait_where = nullptr;
    std::size_t waker = 0;
    int requested = 0;
    int woken = 0;
    const std::string* wake_where = nullptr;
  };

  FutexLedger(const futex::FutexConfig& config, const futex::FutexMachine& machine, std::size_t threads)
      : table_(config, machine), self_(threads), where_(threads, nullptr), waits_(threads) {}

  // Program thread `index` is the calling platform thread; called as the thread starts.
  void bind(std::size_t index) {
    const Thread me = P::self();
    const std::lock_guard guard(mutex_);
    self_[index] = me;
  }
  // The platform thread of program thread `index` (bound).
  Thread thread(std::size_t index) const {
    const std::lock_guard guard(mutex_);
    return *self_.at(index);
  }
  // The op program thread `index` is running, named in reports.
  void at(std::size_t index, const std::string* where) { where_[index] = where; }
  const std::string* where(std::size_t index) const { return where_[index]; }

  // Forgets the calls of an execution, so that the program can run again (native litmus runs).
  // Call with no program thread running.
  void reset() {
    const std::lock_guard guard(mutex_);
    for (std::optional<Wait>& w : waits_) w.reset();
    wakes_.clear();
    requeued_from_.clear();
  }

  futex::FutexError wait(Word& word, std::uint32_t expected, futex::FutexDeadline<P>* deadline = nullptr) {
    const std::size_t t = caller();
    waits_[t] = Wait{&word, expected, where_[t]};  // thread t's own slot: no other thread writes it
    const futex::FutexError r = table_.wait(word, expected, futex::kDefaultPriority, deadline);
    waits_[t].reset();
    return r;
  }

  futex::WakeResult wake(Word& word, int count) {
    const futex::WakeResult r = table_.wake(word, count);
    const std::size_t t = caller();
    const std::lock_guard guard(mutex_);
    wakes_.push_back(Wake{&word, t, count, r.woken, where_[t]});
    return r;
  }

  // A requeued sleeper waits on another word than the one it named: the definition does not
  // cover it, so sleepers of a requeue's source are never judged (they stay a deadlock).
  futex::RequeueResult requeue(Word& from, Word& to, int nr_wake, int nr_requeue,
                               std::optional<std::uint32_t> expected) {
    {
      const std::lock_guard guard(mutex_);
      requeued_from_.push_back(&from);
    }
    return table_.requeue(from, to, nr_wake, nr_requeue, expected);
  }

  // At quiescence (no thread can run, some unfinished): the first sleeper, in thread order,
  // whose wait makes this a lost wakeup, with the first wake of its word that woke too few.
  // `sleeping` says whether a platform thread is asleep (parked) rather than stuck elsewhere;
  // `judged_elsewhere` names program threads whose futex wait is part of a protocol with a
  // judge of its own (a condvar's wait, judged by POSIX's promise: CondvarLedger), which this
  // word-level definition would misjudge.
  std::optional<LostWakeup> lost_wakeup(const std::function<bool(Thread)>& sleeping,
                                        const std::function<bool(std::size_t)>& judged_elsewhere = nullptr) const {
    for (std::size_t t = 0; t < waits_.size(); ++t) {
      const std::optional<Wait>& w = waits_[t];
      if (!w || !sleeping(*self_[t]) || requeued(w->word)) continue;
      if (judged_elsewhere && judged_elsewhere(t)) continue;
      if (w->word->load(std::memory_order_relaxed) == w->expected) continue;  // still what it waited for
      for (const Wake& k : wakes_) {
        if (k.word == w->word && k.woken < k.requested)
          return LostWakeup{t, w->word, w->expected, w->where, k.thread, k.requested, k.woken, k.where};
      }
    }
    return std::nullopt;
  }

 private:
  struct Wait {
    const Word* word = nullptr;
    std::uint32_t expected = 0;
    const std::string* where = nullptr;
  };
  struct Wake {
    const Word* word = nullptr;
    std::size_t thread = 0;
    int requested = 0;
    int woken = 0;
    const std::string* where = nullptr;
  };

  std::size_t caller() const {
    const Thread me = P::self();
    const std::lock_guard guard(mutex_);
    for (std::size_t t = 0; t < self_.size(); ++t)
      if (self_[t] == me) return t;
    throw std::logic_error("a futex call from a thread the ledger does not know");
  }

  bool requeued(const Word* word) const {
    for (const Word* from : requeued_from_)
      if (from == word) return true;
    return false;
  }

  futex::FutexTable<P> table_;
  std::vector<std::optional<Thread>> self_;  // per program thread, once it has started
  std::vector<const std::string*> where_;
  std::vector<std::optional<Wait>> waits_;  // per program thread: the wait it is in, if any
  std::vector<Wake> wakes_;                 // every wake of the execution, in order
  std::vector<const Word*> requeued_from_;
  mutable std::mutex mutex_;  // guards self_, wakes_ and requeued_from_ (see the head of the file)
};

}  // namespace lockstep
