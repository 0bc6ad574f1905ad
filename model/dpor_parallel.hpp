// dfs over several executors at once, with the sequential search's results.
//
// Source-DPOR's subtrees are not independent: a race found deep in one branch may add a
// backtrack point to a node that other branches share. But a subtree's own exploration
// depends only on its root path and the sleep set it starts with, both known when it is
// created; what it does to shared nodes can be deferred. So the branches at the top few
// nodes that branch become tasks that run in parallel, started as soon as the search knows
// them (even while it still explores the branch before them); each publishes its
// executions and its requests for the nodes above it, and its parent merges them in the
// order the sequential search would have met them, applying each request with the
// sequential rule (docs/model-checking.md, "Parallel search"). The verdict,
// the counterexample and every count are then the sequential search's, whatever the
// number of workers (tests/test_model_checker.cpp compares them).
#pragma once

#include <vector>

#include "model/remote_lanes.hpp"
#include "model/search.hpp"

namespace lockstep::model {

struct CheckpointPolicy;  // model/checkpoint.hpp

// With `lanes`, subtrees also go to remote ranks (docs/distributed.md); `lane_executors`, one
// per lane, do the merging of what those send back. With `checkpoint`, the search (even on
// one executor) keeps its finished units' answers and saves them periodically, or resumes
// from a parallel checkpoint's (model/unit_cache.hpp).
SearchOutcome search_dfs(const std::vector<Executor*>& executors, const Verdict& verdict, const SearchLimits& limits,
                         RemoteLanes* lanes = nullptr, const std::vector<Executor*>& lane_executors = {},
                         const CheckpointPolicy* checkpoint = nullptr);

}  // namespace lockstep::model
