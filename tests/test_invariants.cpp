// P::invariant (core/platform.hpp): in the simulator a false condition is the property
// `invariant`, its reads take no step and see the thread's own buffered stores, and it must
// only read; natively it is compiled out unless LOCKSTEP_NATIVE_INVARIANTS.
#include <catch2/catch.hpp>

#include "core/futex/futex_bucket.hpp"
#include "core/sync/range_lock.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/waiter_list.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "sim/exec/sim_platform.hpp"
#include "tests/lambda_workload.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using lockstep::testing::LambdaWorkload;
using P = SimPlatform;

namespace {

struct Fixture {
  FlatCostModel costs{FlatCosts{}};
  Engine engine{MachineShape{{0, 0}}, costs};
  // Under TSO with store buffers of 8 entries.
  Engine tso{MachineShape{{0, 0}}, costs, EngineLimits{1000, 8}};
  model::RandomStrategy random{1};
};

}  // namespace

TEST_CASE_METHOD(Fixture, "a false invariant is the property 'invariant', a true one costs no step", "[invariant]") {
  P::Shared<std::uint64_t>* x = nullptr;
  bool check = false;
  bool holds = true;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Shared<std::uint64_t>>(0, 8);
    e.spawn("t", 0, [&] {
      x->store(1);
      if (check) P::invariant([&] { return (x->load() == 1) == holds; }, "x is 1");
      x->store(2);
    });
  };
  const auto plain = engine.run(w, random, nullptr, 0);
  REQUIRE_FALSE(plain.violation);
  check = true;
  const auto checked = engine.run(w, random, nullptr, 0);
  REQUIRE_FALSE(checked.violation);
  CHECK(checked.steps == plain.steps);  // the condition's load was no step
  CHECK(checked.virtual_time_ns == plain.virtual_time_ns);
  holds = false;
  const auto broken = engine.run(w, random, nullptr, 0);
  REQUIRE(broken.violation);
  CHECK(broken.violation->property == "invariant");
  CHECK(broken.violation->message == "x is 1");
}

TEST_CASE_METHOD(Fixture, "an invariant's reads see the thread's own buffered stores under TSO", "[invariant][tso]") {
  P::Shared<std::uint64_t>* x = nullptr;
  bool seen = false;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Shared<std::uint64_t>>(0, 8);
    e.spawn("t", 0, [&] {
      x->store(7);  // buffered: memory still holds 0
      P::invariant([&] { return seen = x->load() == 7; }, "own store seen");
    });
  };
  const auto r = tso.run(w, random, nullptr, 0);
  CHECK_FALSE(r.violation);
  CHECK(seen);
}

TEST_CASE_METHOD(Fixture, "an invariant that writes is a design bug, not a verdict", "[invariant]") {
  P::Atomic<std::uint64_t>* x = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Atomic<std::uint64_t>>(0, 8);
    e.spawn("t", 0, [&] { P::invariant([&] { return x->fetch_add(1) == 0; }, "writes"); });
  };
  CHECK_THROWS_WITH(engine.run(w, random, nullptr, 0), Catch::Contains("must only read"));
}

TEST_CASE_METHOD(Fixture, "unlinking a futex waiter from a bucket it is not on is an invariant violation",
                 "[invariant][futex]") {
  using Bucket = futex::FutexBucket<P, TicketLock<P>>;
  Bucket* bucket = nullptr;
  bool queue_first = true;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    bucket = make_on<P, Bucket>(0, 64);
    e.spawn("t", 0, [&] {
      Local<P, futex::FutexWaiter<P>> a;
      Local<P, futex::FutexWaiter<P>> b;
      bucket->enqueue(*a, futex::kDefaultPriority);
      if (queue_first) {
        bucket->unlink(*a);
      } else {
        bucket->unlink(*b);  // never queued
      }
    });
  };
  CHECK_FALSE(engine.run(w, random, nullptr, 0).violation);
  queue_first = false;
  const auto r = engine.run(w, random, nullptr, 0);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "invariant");
  CHECK_THAT(r.violation->message, Catch::Contains("not queued"));
}

TEST_CASE_METHOD(Fixture, "a waiter list's remove and pop_front check that the waiter is there", "[invariant][sync]") {
  WaiterList<P>* list = nullptr;
  int mistake = 0;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    list = make_on<P, WaiterList<P>>(0, 64);
    e.spawn("t", 0, [&] {
      Local<P, SleepWaiter<P>> a;
      Local<P, SleepWaiter<P>> b;
      a->prepare(LockMode::exclusive);
      list->push_back(*a);
      if (mistake == 1) list->remove(*b);
      if (mistake == 2) list->push_back(*a);
      list->pop_front();
      if (mistake == 3) list->pop_front();
    });
  };
  CHECK_FALSE(engine.run(w, random, nullptr, 0).violation);
  for (mistake = 1; mistake <= 3; ++mistake) {
    INFO("mistake " << mistake);
    const auto r = engine.run(w, random, nullptr, 0);
    REQUIRE(r.violation);
    CHECK(r.violation->property == "invariant");
  }
}

TEST_CASE("natively an invariant's condition runs only where LOCKSTEP_NATIVE_INVARIANTS is defined", "[invariant]") {
  bool evaluated = false;
  native::NativePlatform::invariant([&] { return evaluated = true; }, "evaluated");
#if defined(LOCKSTEP_NATIVE_INVARIANTS)
  CHECK(evaluated);
#else
  CHECK_FALSE(evaluated);  // release: it costs nothing
#endif
}
