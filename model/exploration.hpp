// Strategy selection: a scenario's `strategy` (StrategySpec) turned into a search, on one
// worker or several, its counterexample minimized, and what the search found.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "model/checkpoint.hpp"
#include "model/minimize.hpp"
#include "model/remote_lanes.hpp"
#include "model/search.hpp"
#include "model/strategy_spec.hpp"

namespace lockstep::model {

struct ExplorationSetup {
  StrategySpec strategy;
  std::uint64_t seed = 1;
  std::uint64_t max_runs = 0;  // executions (random, pct) or the cap (dfs, bounded)
  unsigned workers = 1;
  unsigned split_levels = 0;  // SearchLimits::split_levels
  std::uint64_t min_piece_runs = SearchLimits{}.min_piece_runs;
  Executor* executor = nullptr;                              // worker 0's
  std::function<std::unique_ptr<Executor>()> make_executor;  // the others'
  Verdict verdict;
  // Remote ranks (docs/distributed.md): dfs, bounded, random and pct also hand units to them.
  RemoteLanes* remote = nullptr;
  // Checkpoints (dfs and bounded; the caller checks): a one-worker dfs saves its stack, the
  // others their finished units (model/unit_cache.hpp); a one-worker (stack) checkpoint
  // resumes on one worker whatever `workers` says.
  const CheckpointPolicy* checkpoint = nullptr;
  // Called when the search has found its violation, before minimization (which can take as
  // long as the search): the caller writes the schedule at once, so that a run that dies
  // while minimizing has lost nothing it found (docs/distributed.md).
  std::function<void(const SearchOutcome&)> on_found;
};

struct Exploration {
  std::string strategy;  // dfs, bounded, pct, random
  SearchOutcome outcome;
  std::string bounds;
  std::string guarantee;
  unsigned workers = 1;
  double search_s = 0;  // host time of the search alone (not minimization)
  // Set when a violation was found: the schedule to report, minimized unless the scenario
  // says `minimize: false`.
  std::optional<Counterexample> counterexample;
  unsigned found_preemptions = 0;
  // A fresh strategy of the search's kind: its execution 0 is the search's first, which a
  // passing result traces (any other schedule could meet a violation the search never saw).
  StrategyFactory make_strategy;
};

Exploration explore(const ExplorationSetup& setup);

}  // namespace lockstep::model
