// POSIX's promise for condvars, checked at the interface (core/workloads/condvar_ledger.hpp),
// on hand-built histories whose verdict is known: a signal that finds a waiter blocked must
// unblock one; a signal before anyone waits, a signal not under the waiters' mutex, and a
// spurious wakeup are none of the ledger's business.
#include <catch2/catch.hpp>

#include <string>

#include "core/workloads/condvar_ledger.hpp"

using lockstep::CondvarLedger;

namespace {

const std::string kHere = "test";

}  // namespace

TEST_CASE("condvar ledger: a signal that unblocks the one waiter keeps the promise") {
  CondvarLedger l;
  const std::size_t w = l.wait_begins(0, 0, 0, &kHere);
  const std::size_t s = l.signal_begins(1, 0, false, 0, &kHere);
  l.signal_ended(s);
  l.wait_ended(w);
  CHECK_FALSE(l.lost_wakeup());
}

TEST_CASE("condvar ledger: a signal under the mutex while one thread waits, and nobody leaves, is lost") {
  CondvarLedger l;
  (void)l.wait_begins(0, 0, 0, &kHere);
  const std::size_t s = l.signal_begins(1, 0, false, 0, &kHere);
  l.signal_ended(s);
  const auto lost = l.lost_wakeup();
  REQUIRE(lost);
  CHECK(lost->signal->thread == 1);
  REQUIRE(lost->blocked.size() == 1);
  CHECK(lost->blocked.front()->thread == 0);
}

TEST_CASE("condvar ledger: a signal before the wait began, or not under the waiters' mutex, proves nothing") {
  CondvarLedger before;
  const std::size_t s = before.signal_begins(1, 0, false, 0, &kHere);
  before.signal_ended(s);
  (void)before.wait_begins(0, 0, 0, &kHere);
  CHECK_FALSE(before.lost_wakeup());

  CondvarLedger unlocked;  // the signaller held no mutex: it may have run before the waiter blocked
  (void)unlocked.wait_begins(0, 0, 0, &kHere);
  const std::size_t u = unlocked.signal_begins(1, 0, false, std::nullopt, &kHere);
  unlocked.signal_ended(u);
  CHECK_FALSE(unlocked.lost_wakeup());
}

TEST_CASE("condvar ledger: two signals, two waiters, one of them left: one signal unblocked nobody") {
  CondvarLedger l;
  (void)l.wait_begins(0, 0, 0, &kHere);  // stays
  const std::size_t w1 = l.wait_begins(1, 0, 0, &kHere);
  const std::size_t s1 = l.signal_begins(2, 0, false, 0, &kHere);
  l.signal_ended(s1);
  l.wait_ended(w1);
  const std::size_t s2 = l.signal_begins(2, 0, false, 0, &kHere);
  l.signal_ended(s2);
  const auto lost = l.lost_wakeup();
  REQUIRE(lost);
  CHECK(lost->signal->begun > s1);  // the second signal: thread 1 was the first's
  CHECK(lost->blocked.size() == 1);
}

TEST_CASE("condvar ledger: a lost signal is found after the run too, when a later signal freed the waiter") {
  // Two signals while one thread waits; it leaves after both: one of them unblocked nobody.
  CondvarLedger l;
  const std::size_t w = l.wait_begins(0, 0, 0, &kHere);
  const std::size_t s1 = l.signal_begins(1, 0, false, 0, &kHere);
  l.signal_ended(s1);
  const std::size_t s2 = l.signal_begins(1, 0, false, 0, &kHere);
  l.signal_ended(s2);
  l.wait_ended(w);
  REQUIRE(l.lost_wakeup());

  // The assignment is searched, not greedy: the first signal may take either wait, the
  // second only the first wait; an assignment exists, so nothing is lost.
  CondvarLedger m;
  const std::size_t a = m.wait_begins(0, 0, 0, &kHere);
  const std::size_t b = m.wait_begins(1, 0, 0, &kHere);
  const std::size_t t1 = m.signal_begins(2, 0, false, 0, &kHere);
  m.signal_ended(t1);
  m.wait_ended(b);
  const std::size_t t2 = m.signal_begins(2, 0, false, 0, &kHere);
  m.signal_ended(t2);
  m.wait_ended(a);
  CHECK_FALSE(m.lost_wakeup());
}

TEST_CASE("condvar ledger: a spurious wakeup only adds a candidate, and a broadcast must unblock all") {
  CondvarLedger spurious;  // thread 1 leaves without a signal, then a signal takes thread 0
  const std::size_t w0 = spurious.wait_begins(0, 0, 0, &kHere);
  const std::size_t w1 = spurious.wait_begins(1, 0, 0, &kHere);
  spurious.wait_ended(w1);
  const std::size_t s = spurious.signal_begins(2, 0, false, 0, &kHere);
  spurious.signal_ended(s);
  spurious.wait_ended(w0);
  CHECK_FALSE(spurious.lost_wakeup());

  CondvarLedger broadcast;
  (void)broadcast.wait_begins(0, 0, 0, &kHere);
  const std::size_t w = broadcast.wait_begins(1, 0, 0, &kHere);
  const std::size_t b = broadcast.signal_begins(2, 0, true, 0, &kHere);
  broadcast.signal_ended(b);
  broadcast.wait_ended(w);
  const auto lost = broadcast.lost_wakeup();
  REQUIRE(lost);
  CHECK(lost->signal->broadcast);
}

TEST_CASE("condvar ledger: signals on another condvar do not count") {
  CondvarLedger l;
  (void)l.wait_begins(0, 0, 0, &kHere);
  const std::size_t s = l.signal_begins(1, 1, false, 0, &kHere);
  l.signal_ended(s);
  CHECK_FALSE(l.lost_wakeup());
}
