// scenarios/bench/sim-speed.yaml as a Google Benchmark: the same execution `lockstep run`
// times for sim_ops_per_host_s, repeated until the figure is stable, and timed in CPU time,
// so that engineers sharing a machine can compare builds (the scenario's one wall-clock
// run of ~0.1 s moves by tens of percent with the load of the machine).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "core/workloads/futex_hash.hpp"
#include "driver/simulation.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"
#include "spec/scenario.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

// LOCKSTEP_SIM_SPEED_SCENARIO names another SC futex-hash scenario to time instead (the
// same run on the flat machine, say, to separate the engine from the machine model).
std::string scenario_path() {
  const char* other = std::getenv("LOCKSTEP_SIM_SPEED_SCENARIO");
  return other != nullptr ? other : LOCKSTEP_SOURCE_DIR "/scenarios/bench/sim-speed.yaml";
}

void BM_SimSpeedScenario(benchmark::State& state) {
  const scenario::Scenario s = scenario::load_scenario_row(scenario_path(), {});
  if (!s.workload.is("futex-hash") || s.memory_model != scenario::MemoryModel::sc)
    throw std::logic_error("the sim-speed scenario is no longer an SC futex-hash: update this benchmark");
  // As every command builds it (driver/simulation.hpp): nodes, policy, SMT siblings, limits.
  const std::unique_ptr<CostModel> costs = driver::make_costs(s);
  Engine engine(driver::machine_shape(s), *costs, driver::engine_limits(s));
  SimWorkloadOf<FutexHash<SimPlatform>, FutexHashParams> workload(s.workload.get<FutexHashParams>());
  std::uint64_t memory_ops = 0;
  for (auto _ : state) {
    TimedStrategy oracle(s.strategy.seed);
    memory_ops += engine.run(workload, oracle, nullptr, 0).memory_ops;
  }
  state.counters["sim_ops"] = static_cast<double>(memory_ops) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(memory_ops));
}
BENCHMARK(BM_SimSpeedScenario)->Unit(benchmark::kMillisecond);

}  // namespace
