// `naive`: every interleaving, with no reduction at all: a plain depth-first walk over the
// tree of scheduling choices (every enabled thread step and, under x86-TSO, every store
// buffer's next drain, at every point where more than one is possible).
//
// It is the reference the reducing strategies are checked against (tests/differential/):
// it shares no code with dfs's partial-order reduction (no dependence relation, no sleep
// sets, no race analysis), so a choice dfs wrongly prunes is still taken here. Its cost is
// the number of interleavings, which grows factorially: it is for small programs, and its
// `executions` cap stops it on larger ones (then it is not exhaustive).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "model/exploration_strategy.hpp"

namespace lockstep::model {

class NaiveStrategy final : public ExplorationStrategy {
 public:
  std::string name() const override { return "naive"; }
  void begin_execution(std::uint64_t) override { depth_ = 0; }

  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    const std::size_t i = depth_++;
    if (i < path_.size()) {  // re-running the prefix of the branch being explored
      if (path_[i].options != candidates.size())
        throw std::logic_error(
            "naive: a re-run offered other choices than the first run: the scenario is not deterministic");
      return path_[i].taken;
    }
    path_.push_back(Branch{static_cast<std::uint32_t>(candidates.size()), 0});
    return 0;
  }

  // The next branch: the deepest choice point with an untried option takes its next one.
  bool next(const sim::ExecutionResult&) override {
    if (depth_ != path_.size())
      throw std::logic_error(
          "naive: a re-run ended before the choices it made last time: the scenario is not deterministic");
    while (!path_.empty() && path_.back().taken + 1 == path_.back().options) path_.pop_back();
    if (path_.empty()) {
      exhausted_ = true;
      return false;
    }
    ++path_.back().taken;
    return true;
  }
  bool exhaustive() const override { return exhausted_; }
  // Like dfs, so that both explore the same executions: a violating thread stops, the
  // others run on.
  bool continue_after_violation() const override { return true; }

 private:
  struct Branch {
    std::uint32_t options = 0;
    std::uint32_t taken = 0;
  };
  std::vector<Branch> path_;
  std::size_t depth_ = 0;
  bool exhausted_ = false;
};

}  // namespace lockstep::model
