#include "tests/differential/engine_outcomes.hpp"

#include <optional>
#include <vector>

#include "core/workloads/program_workload.hpp"
#include "driver/witness_scheduler.hpp"
#include "model/dpor_parallel.hpp"
#include "model/dpor_strategy.hpp"
#include "model/naive_strategy.hpp"
#include "model/search.hpp"
#include "model/search_estimate.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/sim_platform.hpp"

namespace lockstep::difftest {

namespace {

using Workload = ProgramWorkload<sim::SimPlatform>;

// Runs the program and records the final state of every execution that ends.
class Collecting final : public sim::SimWorkload {
 public:
  explicit Collecting(std::shared_ptr<const program::Program> p) : program_(std::move(p)) {}
  void setup(sim::Engine& engine) override {
    workload_.reset();
    workload_.emplace(program_);
    workload_->setup([&engine](std::string name, CpuId cpu, std::function<void()> body) {
      engine.spawn(std::move(name), cpu, std::move(body));
    });
  }
  void check(sim::Engine&) override {
    std::vector<std::uint64_t> values;
    for (std::size_t v = 0; v < program_->variables.size(); ++v) values.push_back(workload_->value_of(v));
    std::vector<std::vector<std::int64_t>> regs;
    for (std::size_t t = 0; t < program_->threads.size(); ++t) {
      regs.emplace_back();
      for (std::size_t r = 0; r < program_->threads[t].registers.size(); ++r)
        regs.back().push_back(workload_->register_of(t, r));
    }
    outcomes.insert(final_state_text(*program_, values, regs));
  }
  std::set<std::string> outcomes;

 private:
  std::shared_ptr<const program::Program> program_;
  std::optional<Workload> workload_;
};

class Executor final : public model::Executor {
 public:
  Executor(const std::shared_ptr<const program::Program>& p, Model model)
      : engine_(shape(*p), costs_, limits(model)), workload_(p) {}
  sim::ExecutionResult run(sim::Scheduler& oracle, std::uint64_t index) override {
    sim::ExecutionResult r = engine_.run(workload_, oracle, nullptr, index);
    if (r.violation) {
      // Every thread that failed an assert stopped there, the others ran on (both strategies
      // continue after a violation): the outcome is the set of asserts that failed, each
      // named by its place ("FILE:LINE:COL: assert '...' failed (...)").
      std::vector<std::string> failed;
      for (const sim::Violation& v : r.violations) {
        const std::string& m = v.message;
        failed.push_back(v.property == "assertion" ? m.substr(0, m.find(": assert")) : v.property + ": " + m);
      }
      workload_.outcomes.insert(assertions_text(failed));
    }
    return r;
  }
  // The outcome of the last run (what run() added, or the set's only new entry).
  std::string run_one(sim::Scheduler& oracle) {
    workload_.outcomes.clear();
    run(oracle, 0);
    if (workload_.outcomes.size() == 1) return *workload_.outcomes.begin();
    std::string all = "(" + std::to_string(workload_.outcomes.size()) + " outcomes:";
    for (const std::string& o : workload_.outcomes) all += " [" + o + "]";
    return all + ")";
  }
  std::size_t processes() const override { return engine_.thread_count() * (engine_.store_buffers() ? 2 : 1); }
  const std::set<std::string>& outcomes() const { return workload_.outcomes; }

 private:
  static sim::MachineShape shape(const program::Program& p) {
    sim::MachineShape s;
    s.node_of_cpu.assign(std::max<std::size_t>(p.threads.size(), 1), 0);
    return s;
  }
  static sim::EngineLimits limits(Model model) {
    sim::EngineLimits l;
    l.store_buffer_entries = model == Model::tso ? 32 : 0;
    return l;
  }
  sim::FlatCostModel costs_{sim::FlatCosts{}};
  sim::Engine engine_;
  Collecting workload_;
};

}  // namespace

std::vector<FollowedPlan> follow_plans(const std::shared_ptr<const program::Program>& program, Model model,
                                       const std::vector<std::vector<axiomatic::PlanStep>>& plans) {
  Executor executor(program, model);
  std::vector<FollowedPlan> out;
  for (const auto& plan : plans) {
    driver::WitnessScheduler witness(plan, true);
    FollowedPlan f;
    f.outcome = executor.run_one(witness);
    f.failure = witness.failure();
    if (f.failure.empty() && !witness.finished()) f.failure = "the engine ended before the plan did";
    out.push_back(std::move(f));
  }
  return out;
}

EngineOutcomes explore_engine(const std::shared_ptr<const program::Program>& program, Model model, Explorer explorer,
                              unsigned workers, std::uint64_t max_runs) {
  std::vector<std::unique_ptr<Executor>> owned;
  std::vector<model::Executor*> executors;
  for (unsigned w = 0; w < std::max(workers, 1U); ++w) {
    owned.push_back(std::make_unique<Executor>(program, model));
    executors.push_back(owned.back().get());
  }
  const model::Verdict none = [](const sim::ExecutionResult&) { return std::optional<sim::Violation>{}; };
  const model::SearchLimits limits{max_runs};
  model::SearchOutcome o;
  if (explorer == Explorer::naive) {
    model::NaiveStrategy naive;
    o = model::search(naive, *executors.front(), none, limits);
  } else if (executors.size() == 1) {
    model::DporStrategy dfs;
    o = model::search(dfs, *executors.front(), none, limits);
  } else {
    o = model::search_dfs(executors, none, limits);
  }
  EngineOutcomes r;
  for (const auto& e : owned) r.outcomes.insert(e->outcomes().begin(), e->outcomes().end());
  r.executions = o.executions;
  r.pruned = o.pruned;
  r.internal_errors = o.internal_errors;
  r.exhaustive = o.exhaustive;
  return r;
}

model::SearchEstimate estimate_engine(const std::shared_ptr<const program::Program>& program, Model model,
                                      const model::EstimateOptions& options) {
  Executor executor(program, model);
  return model::estimate_search(executor, options);
}

}  // namespace lockstep::difftest
