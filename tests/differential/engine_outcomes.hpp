// The same question the reference answers (which final states are reachable), asked of the
// engine and a strategy: every execution's outcome is collected instead of stopping at the
// first violation, so dfs (with any number of workers) and naive can be compared with the
// reference outcome by outcome.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "axiomatic/witness_plan.hpp"
#include "core/workloads/program.hpp"
#include "model/search_estimate.hpp"
#include "tests/differential/reference_machine.hpp"

namespace lockstep::difftest {

enum class Explorer : std::uint8_t { dfs, naive };

struct EngineOutcomes {
  std::set<std::string> outcomes;
  std::uint64_t executions = 0;  // complete ones
  std::uint64_t pruned = 0;
  std::uint64_t internal_errors = 0;
  bool exhaustive = false;
};

// The engine following each plan (an smt model of each reachable outcome, driver's
// WitnessScheduler): the outcome each reaches, or why the engine could not follow it.
struct FollowedPlan {
  std::string outcome;
  std::string failure;  // empty: followed to the end
};
std::vector<FollowedPlan> follow_plans(const std::shared_ptr<const program::Program>& program, Model model,
                                       const std::vector<std::vector<axiomatic::PlanStep>>& plans);

EngineOutcomes explore_engine(const std::shared_ptr<const program::Program>& program, Model model, Explorer explorer,
                              unsigned workers, std::uint64_t max_runs);

// The estimate of dfs's executions (model/search_estimate.hpp) on the same engine.
model::SearchEstimate estimate_engine(const std::shared_ptr<const program::Program>& program, Model model,
                                      const model::EstimateOptions& options);

}  // namespace lockstep::difftest
