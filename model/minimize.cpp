#include "model/minimize.hpp"

#include <chrono>
#include <stdexcept>
#include <tuple>

#include "model/bounded_strategy.hpp"
#include "model/replay_strategy.hpp"

namespace lockstep::model {

namespace {

// Follows a schedule like ReplayStrategy, but sees every step, so it knows who ran last.
class PreemptionCounter final : public sim::Scheduler {
 public:
  explicit PreemptionCounter(const sim::Schedule& schedule) : replay_(schedule, sim::EngineMode::explore) {}
  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t index) override {
    replay_.begin_execution(index);
    last_ = sim::kNoThread;
    preemptions_ = 0;
  }
  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    const std::size_t k = candidates.size() > 1 ? replay_.pick(candidates) : 0;
    // As BoundedStrategy counts them: leaving a thread that could go on, for another thread
    // or for a store buffer's drain.
    const sim::Choice& c = candidates[k].choice;
    bool last_enabled = false;
    for (const sim::Candidate& d : candidates)
      last_enabled |= d.choice.kind == sim::Choice::Kind::step && d.choice.thread == last_;
    const bool same = c.kind == sim::Choice::Kind::step && c.thread == last_;
    if (last_enabled && !same) ++preemptions_;
    if (c.kind == sim::Choice::Kind::step) last_ = c.thread;
    return k;
  }
  std::string name() const override { return "replay"; }
  unsigned preemptions() const { return preemptions_; }

 private:
  ReplayStrategy replay_;
  sim::EventLog log_;
  sim::ThreadId last_ = sim::kNoThread;
  unsigned preemptions_ = 0;
};

}  // namespace

unsigned count_preemptions(Executor& executor, const sim::Schedule& schedule, std::uint64_t index) {
  PreemptionCounter counter(schedule);
  executor.run(counter, index);
  return counter.preemptions();
}

Counterexample minimize(Executor& executor, const Verdict& verdict, const sim::Schedule& found,
                        std::uint64_t found_index, const MinimizeBudget& budget, const std::string& property) {
  Counterexample best;
  best.schedule = found;
  PreemptionCounter counter(found);
  best.steps = executor.run(counter, found_index).steps;
  best.preemptions = counter.preemptions();
  if (property == "bound_exceeded") {
    best.stopped = "skipped: a step-bound violation runs to the bound under any schedule";
    return best;
  }
  const auto start = std::chrono::steady_clock::now();
  // Why minimization must stop now, or nothing.
  const auto over_budget = [&]() -> const char* {
    if (best.steps_spent >= budget.steps) return "step budget";
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget.seconds)
      return "time budget";
    return nullptr;
  };
  bool lower_bounds_exhausted = true;
  for (unsigned bound = 0; bound <= best.preemptions; ++bound) {
    BoundedStrategy strategy(BoundKind::preemption, bound);
    bool hit = false;
    bool exhausted = false;
    for (std::uint64_t run = 0; run < budget.executions_per_bound; ++run) {
      if (const char* why = over_budget()) {  // nothing proven: the bound's search did not finish
        best.stopped = why;
        return best;
      }
      sim::ExecutionResult r = executor.run(strategy, run);
      ++best.executions;
      best.steps_spent += r.steps;
      if (verdict(r)) {
        const unsigned p = count_preemptions(executor, r.schedule, run);
        if (std::tie(p, r.steps) < std::tie(best.preemptions, best.steps)) {
          best.schedule = std::move(r.schedule);
          best.steps = r.steps;
          best.preemptions = p;
        }
        hit = true;
      }
      if (!strategy.next(r)) {
        exhausted = true;
        break;
      }
    }
    if (hit || bound == best.preemptions) {
      best.fewest_preemptions_proven = lower_bounds_exhausted;
      best.fewest_steps_proven = lower_bounds_exhausted && exhausted;
      break;
    }
    lower_bounds_exhausted = lower_bounds_exhausted && exhausted;
  }
  return best;
}

}  // namespace lockstep::model
