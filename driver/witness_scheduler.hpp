// The engine following an SMT witness (docs/model-checking.md, "Witnesses that replay"):
// an oracle that answers every scheduling point from the plan the axiomatic checker made
// (axiomatic/witness_plan.hpp), so that the engine's execution is the one the model
// describes. A thread's first step (`start`) performs its first operation.
// Where the plan asks for something the engine does not offer, the oracle stops
// the execution and says why: one of the two engines is wrong.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "axiomatic/witness_plan.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::driver {

class WitnessScheduler final : public sim::Scheduler {
 public:
  // `go_on`: after a violation the violating thread stops and the others run on (to reach
  // a final state in which several asserts failed, as the reference enumerator does).
  explicit WitnessScheduler(std::vector<axiomatic::PlanStep> plan, bool go_on = false)
      : plan_(std::move(plan)), go_on_(go_on) {}
  bool continue_after_violation() const override { return go_on_; }

  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  void begin_execution(std::uint64_t) override {
    next_ = 0;
    failure_.clear();
  }
  std::size_t pick(std::span<const sim::Candidate> candidates) override;
  // Asked at every step, so that no step of the plan goes by unseen.
  sim::EventLog* event_log() override { return &log_; }
  std::string name() const override { return "smt"; }

  // Empty when the plan was followed to its end.
  const std::string& failure() const { return failure_; }
  bool finished() const { return failure_.empty() && next_ == plan_.size(); }

 private:
  std::vector<axiomatic::PlanStep> plan_;
  bool go_on_ = false;
  std::size_t next_ = 0;
  std::string failure_;
  sim::EventLog log_;
};

}  // namespace lockstep::driver
