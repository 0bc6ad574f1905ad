// A scenario row's simulator: the cost model, engine and workload its machine, memory model
// and workload ask for, and the executors the model checker's searches drive. Every command
// that simulates a row (run, check, replay; later compare and the SMT witnesses) builds its
// engine here, so they all simulate the same machine.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/search.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/exec/engine.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// The row's workload, fresh (null for c2c, which runs one execution per CPU pair).
std::unique_ptr<sim::SimWorkload> make_workload(const scenario::Scenario& s);
// A modelled machine's memory system, or the flat machine's fixed costs.
std::unique_ptr<sim::CostModel> make_costs(const scenario::Scenario& s);
// The engine's view of the machine: CPUs, their nodes and, for a modelled machine, which
// hardware threads share a core.
sim::MachineShape machine_shape(const scenario::Scenario& s);
// The engine's limits: steps, store buffers, and whether to track happens-before.
sim::EngineLimits engine_limits(const scenario::Scenario& s);

// One execution at a time on an engine and a workload, for the model checker's search.
// `runs`, when given, counts the executions (a progress meter reads it from another thread),
// 16 at a time: every worker's executor adds to it, and a counter bumped by every execution on
// every core bounces its cache line between them. The meter lags by under 16 a worker.
class SimExecutor : public model::Executor {
 public:
  SimExecutor(sim::Engine& engine, sim::SimWorkload& workload, std::atomic<std::uint64_t>* runs = nullptr)
      : engine_(engine), workload_(workload), runs_(runs) {}
  ~SimExecutor() override {
    if (runs_ != nullptr && unpublished_ > 0) runs_->fetch_add(unpublished_, std::memory_order_relaxed);
  }
  SimExecutor(const SimExecutor&) = delete;
  SimExecutor& operator=(const SimExecutor&) = delete;
  sim::ExecutionResult run(sim::Scheduler& oracle, std::uint64_t index) override {
    sim::ExecutionResult r = engine_.run(workload_, oracle, nullptr, index);
    if (runs_ != nullptr && ++unpublished_ == kPublishEvery) {
      runs_->fetch_add(kPublishEvery, std::memory_order_relaxed);
      unpublished_ = 0;
    }
    return r;
  }
  std::size_t processes() const override { return engine_.thread_count() * (engine_.store_buffers() ? 2 : 1); }

 private:
  static constexpr std::uint64_t kPublishEvery = 16;
  sim::Engine& engine_;
  sim::SimWorkload& workload_;
  std::atomic<std::uint64_t>* runs_;
  std::uint64_t unpublished_ = 0;
};

// A parallel search's other workers: each with an engine, cost model and workload of its own,
// built exactly as worker 0's (engine_limits included, so every worker detects races alike).
class OwnedSimExecutor final : public model::Executor {
 public:
  explicit OwnedSimExecutor(const scenario::Scenario& s, std::atomic<std::uint64_t>* runs = nullptr)
      : costs_(make_costs(s)),
        engine_(machine_shape(s), *costs_, engine_limits(s)),
        workload_(make_workload(s)),
        executor_(engine_, *workload_, runs) {}
  sim::ExecutionResult run(sim::Scheduler& oracle, std::uint64_t index) override {
    return executor_.run(oracle, index);
  }
  std::size_t processes() const override { return executor_.processes(); }

 private:
  std::unique_ptr<sim::CostModel> costs_;
  sim::Engine engine_;
  std::unique_ptr<sim::SimWorkload> workload_;
  SimExecutor executor_;
};

}  // namespace lockstep::driver
