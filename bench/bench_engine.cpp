// Engine speed: the cost of a fiber switch, of a simulated step, and how many executions of
// a small scenario run per second (exploration is stateless: every execution starts over,
// so this is the model checker's ceiling).
#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>

#include "core/workloads/lock_counter.hpp"
#include "model/random_strategy.hpp"
#include "sim/exec/fiber_switch.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

// A fiber and the host resuming each other in a loop, each resume by `resume`: one round
// trip is two switches.
template <typename Resume>
void fiber_ping_pong(benchmark::State& state, Resume resume) {
  namespace ctx = boost::context;
  bool done = false;
  ctx::fiber f{[&done, resume](ctx::fiber&& back) {
    while (!done) back = resume(std::move(back));
    return std::move(back);
  }};
  for (auto _ : state) f = resume(std::move(f));
  done = true;
  f = resume(std::move(f));
  state.SetItemsProcessed(state.iterations() * 2);
}

// Raw Boost.Context.
void BM_BoostFiberSwitch(benchmark::State& state) {
  fiber_ping_pong(state, [](boost::context::fiber&& f) { return std::move(f).resume(); });
}
BENCHMARK(BM_BoostFiberSwitch);

// The same with the engine's switch (fiber_switch.hpp). This loop is the case it is not
// made for: neither side returns after a switch, so Boost's unbalanced jump costs nothing
// here, while the engine's switch returns once into a loop other than the one that called
// it, a mispredicted return per switch (on the development VM: 11 ns a switch for Boost's,
// 28-30 ns for this one). The engine's threads are suspended at the same call and return
// through several frames after each switch, which is where this one wins
// (BM_SimSpeedScenario, bench/README.md).
void BM_EngineFiberSwitch(benchmark::State& state) {
  fiber_ping_pong(state, [](boost::context::fiber&& f) { return switch_fiber(std::move(f)); });
}
BENCHMARK(BM_EngineFiberSwitch);

// Always picks the candidate after the current one: every step switches threads.
class Alternate final : public Scheduler {
 public:
  EngineMode mode() const override { return EngineMode::explore; }
  void begin_execution(std::uint64_t) override { last_ = 0; }
  std::size_t pick(std::span<const Candidate> c) override {
    last_ = (last_ + 1) % c.size();
    return last_;
  }
  std::string name() const override { return "alternate"; }

 private:
  std::size_t last_ = 0;
};

class Loads final : public SimWorkload {
 public:
  explicit Loads(int per_thread) : per_thread_(per_thread) {}
  void setup(Engine& e) override {
    auto* x = make_on<SimPlatform, SimPlatform::Atomic<std::uint64_t>>(0, 8);
    for (int t = 0; t < 2; ++t)
      e.spawn("t", t, [x, n = per_thread_] {
        for (int i = 0; i < n; ++i) benchmark::DoNotOptimize(x->load(std::memory_order_relaxed));
      });
  }
  void check(Engine&) override {}

 private:
  int per_thread_;
};

// A simulated step that switches threads every time: switch + scheduling + op + cost.
void BM_SimStepWithSwitch(benchmark::State& state) {
  FlatCostModel costs{FlatCosts{}};
  Engine engine(MachineShape{{0, 0}}, costs);
  Loads w(10'000);
  Alternate oracle;
  std::uint64_t steps = 0;
  for (auto _ : state) steps += engine.run(w, oracle, nullptr, 0).steps;
  state.SetItemsProcessed(static_cast<std::int64_t>(steps));
}
BENCHMARK(BM_SimStepWithSwitch)->Unit(benchmark::kMillisecond);

// Executions per second of a 2-thread scenario: two threads, one lock-protected increment
// each (about 12 steps an execution), random schedule.
void BM_ExecutionsTwoThreads(benchmark::State& state) {
  FlatCostModel costs{FlatCosts{}};
  Engine engine(MachineShape{{0, 0}}, costs);
  SimWorkloadOf<LockCounter<SimPlatform>, LockCounterParams> w(
      LockCounterParams{SpinlockKind::ticket, 2, static_cast<int>(state.range(0)), 2});
  model::RandomStrategy oracle(1);
  std::uint64_t i = 0;
  std::uint64_t steps = 0;
  for (auto _ : state) steps += engine.run(w, oracle, nullptr, i++).steps;
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
  state.counters["steps_per_execution"] = static_cast<double>(steps) / static_cast<double>(i);
}
BENCHMARK(BM_ExecutionsTwoThreads)->Arg(1)->Arg(10);

// Simulated memory operations per host second with the full machine model: the sim-speed
// scenario's workload (32 threads, a ticket lock bouncing between the 8 sockets of
// barcelona-8s), timed, untraced.
void BM_SimOpsMachineModel(benchmark::State& state) {
  machine::MemorySystem memory(machine::make_preset("barcelona-8s"));
  Engine engine(MachineShape{memory.topology().node_of_cpu()}, memory, EngineLimits{50'000'000, 0});
  SimWorkloadOf<LockCounter<SimPlatform>, LockCounterParams> w(LockCounterParams{SpinlockKind::ticket, 32, 5, 32});
  TimedStrategy oracle(1);
  std::uint64_t memory_ops = 0;
  for (auto _ : state) memory_ops += engine.run(w, oracle, nullptr, 0).memory_ops;
  state.SetItemsProcessed(static_cast<std::int64_t>(memory_ops));
}
BENCHMARK(BM_SimOpsMachineModel)->Unit(benchmark::kMillisecond);

// The same with the flat cost model: what the engine costs without the memory system.
void BM_SimOpsFlat(benchmark::State& state) {
  FlatCostModel costs{FlatCosts{}};
  MachineShape shape;
  shape.node_of_cpu.assign(32, 0);
  Engine engine(shape, costs, EngineLimits{50'000'000, 0});
  SimWorkloadOf<LockCounter<SimPlatform>, LockCounterParams> w(LockCounterParams{SpinlockKind::ticket, 32, 20, 32});
  TimedStrategy oracle(1);
  std::uint64_t steps = 0;
  for (auto _ : state) steps += engine.run(w, oracle, nullptr, 0).memory_ops;
  state.SetItemsProcessed(static_cast<std::int64_t>(steps));
}
BENCHMARK(BM_SimOpsFlat)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
