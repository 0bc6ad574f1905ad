// The bounded strategy over several executors at once. Its search space is a plain tree (no
// reduction), so subtrees are independent: a first pass enumerates the tree down to a few
// branching nodes and hands the subtrees below them to the workers; the results are then
// read in depth-first order, so the verdict, the counterexample and every count are the
// ones the sequential search gives, whatever the number of workers.
#pragma once

#include <vector>

#include "model/bounded_strategy.hpp"
#include "model/remote_lanes.hpp"
#include "model/search.hpp"

namespace lockstep::model {

struct CheckpointPolicy;  // model/checkpoint.hpp

// With `checkpoint`, the search (even on one executor) keeps its subtrees' answers and saves
// them periodically, or resumes from a checkpoint's (model/unit_cache.hpp).
SearchOutcome search_bounded(BoundKind kind, unsigned bound, const std::vector<Executor*>& executors,
                             const Verdict& verdict, const SearchLimits& limits, RemoteLanes* lanes = nullptr,
                             const CheckpointPolicy* checkpoint = nullptr);

}  // namespace lockstep::model
