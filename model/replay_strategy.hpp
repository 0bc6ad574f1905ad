// `replay`: follows a recorded schedule answer by answer. A schedule that does not fit the
// scenario (a choice that is not a candidate, or running out of answers) is an error that
// names the step, never a silent divergence.
#pragma once

#include <stdexcept>

#include <fmt/format.h>

#include "sim/scheduler.hpp"

namespace lockstep::model {

class ScheduleMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ReplayStrategy final : public sim::Scheduler {
 public:
  ReplayStrategy(sim::Schedule schedule, sim::EngineMode mode) : schedule_(std::move(schedule)), mode_(mode) {}
  sim::EngineMode mode() const override { return mode_; }
  void begin_execution(std::uint64_t) override { next_ = 0; }
  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    if (next_ >= schedule_.size())
      throw ScheduleMismatch(fmt::format("the schedule ends after {} choices, but the execution needs more", next_));
    const sim::Choice& want = schedule_[next_];
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].choice == want) {
        ++next_;
        return i;
      }
    }
    throw ScheduleMismatch(fmt::format("choice {} of the schedule ({}thread {}) is not enabled at that point",
                                       next_ + 1, want.kind == sim::Choice::Kind::drain ? "store drain of " : "",
                                       want.thread));
  }
  std::string name() const override { return "replay"; }
  // True when every recorded answer was used.
  bool consumed() const { return next_ == schedule_.size(); }

 private:
  sim::Schedule schedule_;
  sim::EngineMode mode_;
  std::size_t next_ = 0;
};

}  // namespace lockstep::model
