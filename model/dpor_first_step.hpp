// The parallel dfs's first-step probe (model/dpor_parallel.cpp): re-runs a subtree's root
// path and its first step to learn what that step touches.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/dpor_strategy.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::model::parallel {

// Runs a subtree's root path and its first step, logging them into `log`, then goes on for
// up to `tail` more steps (each thread's first candidate) to let the threads finish: an
// execution ended early destroys its unfinished fibers, and each one's stack is unwound by an
// exception (Boost.Context's forced_unwind) at about 35,000 instructions. On fib_bench with
// 16 workers, 2,946 first-step probes threw 7,203 times, 58% of all the work the parallel
// search added over one worker (callgrind: 10.30 G instructions against 9.62 G); running
// the threads out took 9.87 G. The tail's steps fill a log no one reads past the first step;
// where the threads do not finish within it (a long or looping program) the execution ends
// there as before. A resumed search's replay (its strategy's log, read by backtracking)
// takes no tail: that log must hold the branch's steps only.
class FirstStepProbe final : public sim::Scheduler {
 public:
  FirstStepProbe(const DporStrategy::Subtree& t, sim::EventLog& log, std::size_t tail)
      : t_(t), log_(log), end_(t.nodes.size() + tail) {}
  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t) override { depth_ = 0; }
  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    const std::size_t i = depth_++;
    if (i >= end_) return kAbandon;
    if (i >= t_.nodes.size()) return 0;
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (candidates[k].choice == t_.nodes[i].chosen) return k;
    throw std::logic_error("dfs: a subtree's root path does not replay: the scenario is not deterministic");
  }
  std::string name() const override { return "dfs"; }
  // The root path was found by a search that went on past violations: so must its re-run.
  bool continue_after_violation() const override { return true; }
  std::vector<sim::StepAccess> accesses() const {
    const auto a = log_.accesses_of(log_.steps.at(t_.nodes.size() - 1));
    return {a.begin(), a.end()};
  }

 private:
  const DporStrategy::Subtree& t_;
  sim::EventLog& log_;
  std::size_t end_;
  std::size_t depth_ = 0;
};

// A first-step probe's tail, in steps [guess]: well above what the bundled searches'
// executions take (fib_bench's at most 32 steps, mc-four-threads-7's 28), so their probes
// run out; a probe whose threads do not finish within it pays for these steps and then for
// the unwinding, as before.
constexpr std::size_t kProbeTail = 1000;

}  // namespace lockstep::model::parallel
