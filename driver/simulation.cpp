#include "driver/simulation.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "core/properties.hpp"
#include "driver/workload_bindings.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/topology.hpp"

namespace lockstep::driver {

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

std::unique_ptr<sim::SimWorkload> make_workload(const Scenario& s) {
  const WorkloadBinding& binding = binding_of(s.workload);
  if (binding.simulate == nullptr) return nullptr;  // c2c: many executions, see RowRunner::c2c
  return binding.simulate(s.workload);
}

std::unique_ptr<sim::CostModel> make_costs(const Scenario& s) {
  if (s.machine.model) return std::make_unique<sim::machine::MemorySystem>(*s.machine.model);
  return std::make_unique<sim::FlatCostModel>(s.machine.costs);
}

// The engine's view of the machine: CPUs, their nodes and, for a modelled machine, which
// hardware threads share a core.
sim::MachineShape machine_shape(const Scenario& s) {
  sim::MachineShape shape{s.machine.node_of_cpu, s.machine.memory_policy};
  if (s.machine.model) {
    const sim::machine::Topology topology(*s.machine.model);
    for (CpuId cpu = 0; cpu < topology.cpus(); ++cpu) {
      shape.core_of_cpu.push_back(topology.core_of(cpu));
      shape.board_of_cpu.push_back(topology.board_of(topology.package_of(cpu)));
    }
    shape.smt_work_factor = s.machine.model->smt_work_factor;
  }
  shape.idle = s.idle;
  shape.placement = s.placement;
  shape.balance_interval_ns = s.balance_interval_ns;
  return shape;
}

namespace {

// x86-TSO gives every thread a store buffer as deep as the machine's; SC gives none.
std::uint32_t store_buffer_entries(const Scenario& s) {
  constexpr std::uint32_t kFlatStoreBufferEntries = 32;  // [guess] Nehalem's 32, for the flat machine
  if (s.memory_model != MemoryModel::tso) return 0;
  return s.machine.model ? s.machine.model->store_buffer_entries : kFlatStoreBufferEntries;
}

}  // namespace

// The engine's limits: steps, store buffers, whether to track happens-before (only when the
// scenario checks data_race), and whether a timed run's quiet hits run ahead.
sim::EngineLimits engine_limits(const Scenario& s) {
  sim::EngineLimits limits{s.strategy.max_steps, store_buffer_entries(s)};
  limits.detect_races = std::find(s.properties.begin(), s.properties.end(), property::data_race) != s.properties.end();
  // LOCKSTEP_RUN_AHEAD=0 turns it off for every scenario: the oracle of
  // scripts/check-run-ahead-independence.sh, which must find the same results either way.
  const char* run_ahead = std::getenv("LOCKSTEP_RUN_AHEAD");
  limits.run_ahead = s.strategy.run_ahead && (run_ahead == nullptr || std::string_view(run_ahead) != "0");
  return limits;
}

}  // namespace lockstep::driver
