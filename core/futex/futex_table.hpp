// FutexTable<P>: the futex hash table with every design variant of docs/sources.md section 1 as a
// configuration (futex_config.hpp). The same code is the kernel's table in the simulator
// and a user-space parking lot natively (as WebKit's and folly's ParkingLot are).
//
//   FutexTable<P> table(config, FutexMachine{cpus, nodes, threads});
//   table.wait(word, expected);     // EAGAIN if word != expected, checked under the bucket lock
//   table.wake(word, n);            // wakes up to n waiters of word; returns how many
//   table.requeue(w1, w2, nw, nr);  // wakes nw waiters of w1, moves up to nr more to w2
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "core/futex/futex_table_impl.hpp"
#include "core/sync/mcs_lock.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/ttas_lock.hpp"

namespace lockstep::futex {

template <Platform P>
class FutexTable {
 public:
  using Word = typename P::template Atomic<std::uint32_t>;

  FutexTable(const FutexConfig& config, const FutexMachine& machine) : config_(config) {
    switch (config.lock) {
      case SpinlockKind::ticket:
        emplace<TicketLock<P>>(config, machine);
        break;
      case SpinlockKind::ttas:
        emplace<TtasLock<P>>(config, machine);
        break;
      case SpinlockKind::mcs:
        emplace<McsLock<P>>(config, machine);
        break;
      case SpinlockKind::tas:
      case SpinlockKind::clh:
        throw std::invalid_argument("futex table: a bucket's lock is ticket, ttas or mcs");
    }
  }

  // With a deadline, a timed wait (futex_deadline.hpp): ETIMEDOUT once it has passed.
  FutexError wait(Word& word, std::uint32_t expected, std::uint32_t priority = kDefaultPriority,
                  FutexDeadline<P>* deadline = nullptr) {
    return visit([&](auto& t) { return t.wait(word, expected, priority, deadline); });
  }
  WakeResult wake(Word& word, int count) {
    return visit([&](auto& t) { return t.wake(word, count); });
  }
  RequeueResult requeue(Word& from, Word& to, int nr_wake, int nr_requeue,
                        std::optional<std::uint32_t> expected = std::nullopt) {
    return visit([&](auto& t) { return t.requeue(from, to, nr_wake, nr_requeue, expected); });
  }
  int waiters_on(Word& word) {
    return visit([&](auto& t) { return t.waiters_on(word); });
  }
  bool grow(int threads) {
    return visit([&](auto& t) { return t.grow(threads); });
  }
  // References to the private table held now (ProcessRef): 0 between operations.
  std::int64_t references_held() {
    return visit([](auto& t) { return t.references_held(); });
  }

  const FutexConfig& config() const { return config_; }
  std::uint32_t buckets_per_table() const {
    return visit([](auto& t) { return t.buckets_per_table(); });
  }
  int tables() const {
    return visit([](auto& t) { return t.tables(); });
  }
  std::pair<int, std::uint32_t> bucket_of(const Word& word) const {
    return visit([&](auto& t) { return t.bucket_of(word); });
  }

 private:
  // Calls `f` with the implementation for the configured lock; the tables cannot move, so
  // the variant starts empty and the constructor emplaces the one alternative.
  // (The result type is named outside the lambda: clang 14 crashes on `f` in a capturing
  // lambda's trailing return type, and the fuzz build is clang's.)
  template <class F>
  decltype(auto) visit(F&& f) const {
    using Result = decltype(f(std::get<1>(impl_)));
    return std::visit(
        [&](auto& t) -> Result {
          if constexpr (std::is_same_v<std::decay_t<decltype(t)>, std::monostate>) {
            throw std::logic_error("futex table used before construction");
          } else {
            return f(t);
          }
        },
        impl_);
  }

  // The implementation for the configured lock and layout: a split bucket is its own type.
  template <class Lock>
  void emplace(const FutexConfig& config, const FutexMachine& machine) {
    if (config.layout == Layout::split) {
      impl_.template emplace<FutexTableImpl<P, Lock, true>>(config, machine);
    } else {
      impl_.template emplace<FutexTableImpl<P, Lock>>(config, machine);
    }
  }

  FutexConfig config_;
  mutable std::variant<std::monostate, FutexTableImpl<P, TicketLock<P>>, FutexTableImpl<P, TtasLock<P>>,
                       FutexTableImpl<P, McsLock<P>>, FutexTableImpl<P, TicketLock<P>, true>,
                       FutexTableImpl<P, TtasLock<P>, true>, FutexTableImpl<P, McsLock<P>, true>>
      impl_;
};

}  // namespace lockstep::futex
