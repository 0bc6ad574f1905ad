#include <catch2/catch.hpp>

#include "model/random_strategy.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

// A workload given as lambdas, for engine tests.
class LambdaWorkload final : public SimWorkload {
 public:
  std::function<void(Engine&)> on_setup;
  std::function<void(Engine&)> on_check = [](Engine&) {};
  void setup(Engine& e) override { on_setup(e); }
  void check(Engine& e) override { on_check(e); }
};

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
  model::RandomStrategy random(1);
  auto r = engine.run(w, random, nullptr, 0);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "deadlock");
  CHECK_THAT(r.violation->message, Catch::Contains("write to flag"));
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
