// scenarios/bench/sim-speed.yaml as a Google Benchmark: the same execution `lockstep run`
// times for sim_ops_per_host_s, repeated until the figure is stable, and timed in CPU time,
// so that engineers sharing a machine can compare builds (the scenario's one wall-clock
// run of ~0.1 s moves by tens of percent with the load of the machine).
#include <benchmark/benchmark.h>

#include <stdexcept>

#include "cli/scenario.hpp"
#include "core/workloads/futex_hash.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/topology.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

void BM_SimSpeedScenario(benchmark::State& state) {
  const cli::Scenario s = cli::load_scenario_row(LOCKSTEP_SOURCE_DIR "/scenarios/bench/sim-speed.yaml", {});
  if (!s.machine.model || s.workload.kind != cli::WorkloadKind::futex_hash || s.memory_model != cli::MemoryModel::sc)
    throw std::logic_error("sim-speed.yaml is no longer an SC futex-hash on a machine model: update this benchmark");
  machine::MemorySystem memory(*s.machine.model);
  // As the runner builds it (cli/runner.cpp, machine_shape): nodes, policy, SMT siblings.
  MachineShape shape{s.machine.node_of_cpu, s.machine.memory_policy};
  for (CpuId cpu = 0; cpu < memory.topology().cpus(); ++cpu) shape.core_of_cpu.push_back(memory.topology().core_of(cpu));
  shape.smt_work_factor = s.machine.model->smt_work_factor;
  Engine engine(shape, memory, EngineLimits{s.strategy.max_steps, 0});
  SimWorkloadOf<FutexHash<SimPlatform>, FutexHashParams> workload(s.workload.futex_hash);
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
