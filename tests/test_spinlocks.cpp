// The dual-platform counter test (issue 2): written once as a template over the platform,
// run natively on real threads and in simulation under many schedules.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/workloads/lock_counter.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;

namespace {

// Runs LockCounter<P> once on platform P and returns the final count and any violation.
template <class P>
struct CounterRun;

template <>
struct CounterRun<native::NativePlatform> {
  static std::uint64_t run(const LockCounterParams& params, std::string& violation) {
    LockCounter<native::NativePlatform> w(params);
    native::NativeRunner runner;
    w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
    auto result = runner.run();
    w.check();
    native::NativeViolation v;
    if (result.violation) violation = result.violation->property;
    if (native::take_violation(v)) violation = v.property;
    return w.counter();
  }
};

template <>
struct CounterRun<sim::SimPlatform> {
  static std::uint64_t run(const LockCounterParams& params, std::string& violation, sim::Scheduler& oracle,
                           std::uint64_t index) {
    sim::FlatCostModel costs{sim::FlatCosts{}};
    sim::Engine engine(sim::MachineShape{{0, 0, 0, 0}}, costs);
    sim::SimWorkloadOf<LockCounter<sim::SimPlatform>, LockCounterParams> w(params);
    auto result = engine.run(w, oracle, nullptr, index);
    if (result.violation) violation = result.violation->property;
    return w.workload().counter();
  }
};

}  // namespace

TEMPLATE_TEST_CASE("counter under a spinlock is exact", "[sync][dual]", native::NativePlatform, sim::SimPlatform) {
  const auto kind = GENERATE(SpinlockKind::ticket, SpinlockKind::ttas);
  CAPTURE(name_of(kind));
  LockCounterParams params{kind, 4, 200, 4};
  std::string violation;
  if constexpr (std::is_same_v<TestType, native::NativePlatform>) {
    // One thread per host CPU: a spinlock on an oversubscribed host spins away whole time
    // slices whenever the holder is preempted, which makes a test slow, not more thorough.
    params.threads = std::max(2, static_cast<int>(native::allowed_cpus().size()));
    params.cpus = params.threads;
    params.iterations = 10000;
    CHECK(CounterRun<TestType>::run(params, violation) == static_cast<std::uint64_t>(params.threads) * 10000);
    CHECK(violation.empty());
  } else {
    model::RandomStrategy random(7);
    for (std::uint64_t i = 0; i < 50; ++i) {
      violation.clear();
      REQUIRE(CounterRun<TestType>::run(params, violation, random, i) == 4 * 200);
      REQUIRE(violation.empty());
    }
    sim::TimedStrategy timed(7);
    CHECK(CounterRun<TestType>::run(params, violation, timed, 0) == 4 * 200);
    CHECK(violation.empty());
  }
}
