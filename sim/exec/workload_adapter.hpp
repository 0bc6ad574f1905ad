// Runs a platform-generic workload (core/workloads/) on the simulator: a fresh workload
// object for each execution, its threads spawned as fibers.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "core/workloads/workload.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/sim_platform.hpp"

namespace lockstep::sim {

// The hooks W declares (core/workloads/workload.hpp) are the ones called; the concept makes
// a declared hook that W lacks, or one W has and does not declare, a compile error.
template <class W, class Params>
requires Workload<W, SimPlatform::Thread>
class SimWorkloadOf final : public SimWorkload {
 public:
  explicit SimWorkloadOf(Params params) : params_(std::move(params)) {}

  void setup(Engine& engine) override {
    workload_.reset();
    workload_.emplace(params_);
    workload_->setup([&engine](std::string name, CpuId cpu, std::function<void()> body) {
      engine.spawn(std::move(name), cpu, std::move(body));
    });
  }
  // A workload that can say which outcome its final state is (thread programs' `exists`
  // conditions) reports it as a witness, after its own checks.
  void check(Engine& engine) override {
    workload_->check();
    if constexpr (W::kHooks.reached) {
      if (const auto found = workload_->reached()) engine.witness(found->property, found->message);
    }
  }
  std::optional<QuiescenceFinding> at_quiescence(Engine& engine) override {
    if constexpr (W::kHooks.at_quiescence) {
      const auto found = workload_->at_quiescence([&engine](ThreadId id) { return engine.parked(id); });
      if (found) return QuiescenceFinding{found->property, found->message};
    }
    return std::nullopt;
  }
  WorkloadMetrics metrics() const override {
    if constexpr (W::kHooks.metrics) {
      if (workload_) return workload_->metrics();
    }
    return {};
  }
  W& workload() { return *workload_; }

 private:
  Params params_;
  std::optional<W> workload_;
};

}  // namespace lockstep::sim
