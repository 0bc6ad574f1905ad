#include <catch2/catch.hpp>

#include <array>
#include <stdexcept>

#include "core/sync/ticket_lock.hpp"
#include "model/random_strategy.hpp"
#include "sim/exec/engine_state.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/timed_strategy.hpp"
#include "tests/lambda_workload.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

using lockstep::testing::LambdaWorkload;

struct Fixture {
  FlatCostModel costs{FlatCosts{}};
  Engine engine{MachineShape{{0, 0, 1, 1}}, costs};
};

}  // namespace

TEST_CASE_METHOD(Fixture, "a racy increment loses updates under some schedule", "[engine]") {
  using P = SimPlatform;
  P::Shared<std::uint64_t>* x = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Shared<std::uint64_t>>(0, 8);
    for (int i = 0; i < 2; ++i) e.spawn("t" + std::to_string(i), i, [&] { x->store(x->load() + 1); });
  };
  w.on_check = [&](Engine&) {
    if (x->load() != 2) P::violation("lost_update", "x != 2");
  };
  model::RandomStrategy random(1);
  int lost = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    auto r = engine.run(w, random, nullptr, i);
    if (r.violation) {
      REQUIRE(r.violation->property == "lost_update");
      ++lost;
    }
  }
  CHECK(lost > 0);
  CHECK(lost < 200);
}

TEST_CASE_METHOD(Fixture, "park and unpark hand a permit over", "[engine]") {
  using P = SimPlatform;
  P::Atomic<std::uint32_t>* flag = nullptr;
  LambdaWorkload w;
  ThreadId sleeper = 0;
  w.on_setup = [&](Engine& e) {
    flag = make_on<P, P::Atomic<std::uint32_t>>(0, 8);
    sleeper = e.spawn("sleeper", 0, [&] {
      while (flag->load() == 0) P::park();
    });
    e.spawn("waker", 2, [&] {
      flag->store(1);
      P::unpark(sleeper);
    });
  };
  for (int mode = 0; mode < 2; ++mode) {
    model::RandomStrategy random(3);
    TimedStrategy timed(3);
    Scheduler& s = mode == 0 ? static_cast<Scheduler&>(random) : timed;
    for (std::uint64_t i = 0; i < 100; ++i) {
      auto r = engine.run(w, s, nullptr, i);
      REQUIRE_FALSE(r.violation);
    }
  }
}

TEST_CASE_METHOD(Fixture, "a thread parked forever is reported as a deadlock", "[engine]") {
  using P = SimPlatform;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) { e.spawn("lonely", 0, [] { P::park(); }); };
  model::RandomStrategy random(1);
  auto r = engine.run(w, random, nullptr, 0);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "deadlock");
  CHECK_THAT(r.violation->message, Catch::Contains("'lonely' is parked"));
}

TEST_CASE_METHOD(Fixture, "a spin loop with nobody to release it is a deadlock, not a hang", "[engine]") {
  using P = SimPlatform;
  P::Atomic<std::uint32_t>* flag = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    flag = make_on<P, P::Atomic<std::uint32_t>>(0, 8);
    P::label(flag, 4, "flag");
    e.spawn("spinner", 0, [&] {
      while (flag->load() == 0) P::cpu_relax();
    });
  };
  // Exploring, and timed (where a read-only spin loop is fast-forwarded to the next write).
  model::RandomStrategy random(1);
  TimedStrategy timed(1);
  for (Scheduler* oracle : {static_cast<Scheduler*>(&random), static_cast<Scheduler*>(&timed)}) {
    auto r = engine.run(w, *oracle, nullptr, 0);
    REQUIRE(r.violation);
    CHECK(r.violation->property == "deadlock");
    CHECK_THAT(r.violation->message, Catch::Contains("write to flag"));
  }
}

namespace {
// A frame object of a function that has returned by the pause that follows the call: its
// bytes in the thread's frame area outlive it, still holding the value read.
std::uint32_t read_a_returned_local() {
  Local<SimPlatform, SimPlatform::Atomic<std::uint32_t>> word(7U);
  return word->load(std::memory_order_relaxed);
}
}  // namespace

TEST_CASE_METHOD(Fixture, "a spin iteration that read only a returned local does not block", "[engine]") {
  // Each iteration reads a local of a function that has returned by the pause. The next
  // iteration makes that local afresh, so nothing another thread writes can change what it
  // finds: the pause must not block on it. It did when the local's stale bytes still held
  // the value read (a false deadlock).
  using P = SimPlatform;
  int iterations = 0;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    iterations = 0;
    e.spawn("looper", 0, [&] {
      for (; iterations < 3; ++iterations) {
        if (read_a_returned_local() != 7) P::violation("local", "the local lost its value");
        P::cpu_relax();
      }
    });
  };
  model::RandomStrategy random(1);
  TimedStrategy timed(1);
  for (Scheduler* oracle : {static_cast<Scheduler*>(&random), static_cast<Scheduler*>(&timed)}) {
    auto r = engine.run(w, *oracle, nullptr, 0);
    INFO((r.violation ? r.violation->message : std::string{}));
    REQUIRE_FALSE(r.violation);
    CHECK(iterations == 3);
  }
}

TEST_CASE_METHOD(Fixture, "a shared object in a host stack frame is refused, not given a build-dependent address",
                 "[engine]") {
  using P = SimPlatform;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    e.spawn("t", 0, [&] {
      P::Atomic<std::uint32_t> on_host_stack{0};
      on_host_stack.store(1);
    });
  };
  model::RandomStrategy random(1);
  CHECK_THROWS_WITH(engine.run(w, random, nullptr, 0), Catch::Contains("P::Local"));
}

TEST_CASE_METHOD(Fixture, "more threads than CPUs share them in timed mode", "[engine]") {
  using P = SimPlatform;
  LambdaWorkload w;
  P::Atomic<std::uint64_t>* c = nullptr;
  w.on_setup = [&](Engine& e) {
    c = make_on<P, P::Atomic<std::uint64_t>>(0, 8);
    for (int i = 0; i < 12; ++i)
      e.spawn("t" + std::to_string(i), i % 4, [&] {
        for (int k = 0; k < 100; ++k) c->fetch_add(1);
      });
  };
  TimedStrategy timed(5);
  TraceRecorder trace;
  auto r = engine.run(w, timed, &trace, 0);
  REQUIRE_FALSE(r.violation);
  CHECK(c->load() == 1200);
  // Three threads per CPU, 100 RMWs of 8 ns each: at least 2400 ns of work per CPU.
  CHECK(r.virtual_time_ns >= 2400);
  // Same seed, same trace.
  TraceRecorder again;
  engine.run(w, timed, &again, 0);
  CHECK(trace.text() == again.text());
}

TEST_CASE_METHOD(Fixture, "timed: a fast-forwarded spinner resumes when the write lands, not before", "[engine]") {
  using P = SimPlatform;
  P::Atomic<std::uint32_t>* flag = nullptr;
  std::uint64_t seen_at = 0;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    flag = make_on<P, P::Atomic<std::uint32_t>>(0, 64);
    e.spawn("spinner", 0, [&] {
      while (flag->load() == 0) P::cpu_relax();
      seen_at = P::now();
    });
    e.spawn("setter", 2, [&] {
      P::charge(Work::compute, 5000);  // 5 us of work first
      flag->store(1);
    });
  };
  TimedStrategy timed(3);
  auto r = engine.run(w, timed, nullptr, 0);
  REQUIRE_FALSE(r.violation);
  CHECK(seen_at >= 5000);
  CHECK(seen_at < 5000 + 200);  // the store, then one load that misses
  CHECK(r.memory_ops < 20);     // the 5 us of spinning were not simulated load by load
}

TEST_CASE_METHOD(Fixture, "timed: spinners on a shared CPU still let the lock holder run", "[engine]") {
  // Six threads on two CPUs contend for a ticket lock: a waiter that blocked while the
  // holder sat in its CPU's run queue would never let it run again.
  using P = SimPlatform;
  TicketLock<P>* lock = nullptr;
  P::Shared<std::uint64_t>* counter = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    lock = make_on<P, TicketLock<P>>(0, 64);
    counter = make_on<P, P::Shared<std::uint64_t>>(0, 64);
    for (int i = 0; i < 6; ++i)
      e.spawn("t" + std::to_string(i), i % 2, [&] {
        for (int k = 0; k < 20; ++k) {
          lock->lock();
          counter->store(counter->load() + 1);
          lock->unlock();
        }
      });
  };
  TimedStrategy timed(9);
  auto r = engine.run(w, timed, nullptr, 0);
  REQUIRE_FALSE(r.violation);
  CHECK(counter->load() == 120);
}

TEST_CASE("SMT siblings slow each other's work", "[engine]") {
  using P = SimPlatform;
  FlatCostModel costs{FlatCosts{}};
  MachineShape shape;
  shape.node_of_cpu = {0, 0};
  shape.core_of_cpu = {0, 0};  // two hardware threads of one core
  shape.smt_work_factor = 1.5;
  Engine engine(shape, costs);
  std::uint64_t alone = 0;
  std::uint64_t shared = 0;
  LambdaWorkload w;
  int threads = 1;
  w.on_setup = [&](Engine& e) {
    for (int i = 0; i < threads; ++i)
      e.spawn("t" + std::to_string(i), i, [&, i] {
        const std::uint64_t start = P::now();
        P::charge(Work::compute, 1000);
        if (i == 0) (threads == 1 ? alone : shared) = P::now() - start;
      });
  };
  TimedStrategy timed(1);
  engine.run(w, timed, nullptr, 0);
  threads = 2;
  engine.run(w, timed, nullptr, 0);
  CHECK(alone == 1000);
  CHECK(shared == 1500);
}

TEST_CASE("memory policies place allocations on nodes", "[engine][memory]") {
  SimMemory memory;
  auto node_of = [&memory](void* p) { return memory.node_of_address(memory.address_of(p)); };
  memory.set_policy(MemoryPolicy::as_requested, 4);
  CHECK(node_of(memory.allocate(64, 64, 3)) == 3);
  memory.set_policy(MemoryPolicy::node0, 4);
  CHECK(node_of(memory.allocate(64, 64, 3)) == 0);
  memory.set_policy(MemoryPolicy::interleave, 4);
  memory.reset();
  for (int i = 0; i < 8; ++i) CHECK(node_of(memory.allocate(64, 64, 3)) == i % 4);
  // Unbacked ranges interleave page by page.
  const std::uint64_t base = memory.reserve_unbacked(1 << 20, Placement{true, 0}, 4);
  for (int page = 0; page < 8; ++page) CHECK(memory.node_of_address(base + page * kPageBytes + 8) == page % 4);
}

// Virtual time saturates into an error instead of wrapping (a cost of 2^64 - 1 ns once
// reported 596 ns of virtual time).
TEST_CASE("virtual time never wraps", "[engine]") {
  CHECK(lockstep::sim::advance_virtual(5, 7) == 12);
  CHECK(lockstep::sim::advance_virtual(0, lockstep::sim::kMaxVirtualNs) == lockstep::sim::kMaxVirtualNs);
  CHECK_THROWS_WITH(lockstep::sim::advance_virtual(lockstep::sim::kMaxVirtualNs, 1), Catch::Contains("virtual time"));
  CHECK_THROWS_WITH(lockstep::sim::advance_virtual(1, ~std::uint64_t{0}), Catch::Contains("virtual time"));
}

TEST_CASE_METHOD(Fixture, "a run that throws leaves no dangling current engine", "[engine]") {
  REQUIRE(Engine::current() == nullptr);
  LambdaWorkload throws_in_setup;
  throws_in_setup.on_setup = [](Engine&) { throw std::runtime_error("setup failed"); };
  TimedStrategy timed(1);
  CHECK_THROWS_WITH(engine.run(throws_in_setup, timed, nullptr, 0), "setup failed");
  CHECK(Engine::current() == nullptr);
  LambdaWorkload throws_in_check;
  throws_in_check.on_setup = [](Engine& e) { e.spawn("t", 0, [] {}); };
  throws_in_check.on_check = [](Engine&) { throw std::runtime_error("check failed"); };
  CHECK_THROWS_WITH(engine.run(throws_in_check, timed, nullptr, 0), "check failed");
  CHECK(Engine::current() == nullptr);
  // And the engine runs again afterwards.
  LambdaWorkload fine;
  fine.on_setup = [](Engine& e) { e.spawn("t", 0, [] {}); };
  CHECK_FALSE(engine.run(fine, timed, nullptr, 0).violation);
  CHECK(Engine::current() == nullptr);
}
