// How many executions a dfs will complete, estimated before it runs, by stratified sampling
// of its tree (Chen, "Heuristic sampling: a method for predicting the performance of tree
// searching programs", SIAM J. Computing 21(2), 1992; Knuth's 1975 estimator is the special
// case of one node per level).
//
// The tree sampled is the one a search with sleep sets alone walks: every node tries each
// enabled choice that is not asleep, and a choice tried before a sibling sleeps below that
// sibling until a step it depends on runs (DporStrategy::keep_asleep, x86-TSO's drains
// included). Choices are tried in the engine's order reversed, drains first: the count is
// the same in any order, but under x86-TSO a thread step tried before the drains leaves them
// asleep on paths that die later, and drains first cut the probes' work on fib_bench under
// TSO from 1.24 s to 0.34 s. That search completes exactly one execution per
// class (Godefroid's sleep sets over the dependence of docs/model-checking.md), which is the
// number dfs completes: its other leaves end with every choice asleep and count nothing.
//
// A probe walks the tree level by level. At each level the nodes are put into strata by what
// decides the subtree below them as far as the scheduler sees it (each process's step count,
// the operations the enabled choices would run, the sleep set and its footprints); a stratum
// keeps one node, drawn with probability proportional to the weights it merged, and carries
// their sum. Every child of a kept node is expanded (its step run, so its footprint is what
// the engine logs, never predicted). A probe's estimate is the weight that reaches complete
// leaves: unbiased whatever the strata, and exact when the nodes a stratum merges have equal
// subtrees (a program whose control flow does not depend on the values it reads). Two
// reductions keep the count and cut the work: a node with an enabled sleeper that touches
// nothing is dead, and an awake thread step that touches nothing (a buffered store) is the
// node's only child (docs/model-checking.md). Probes are independent; their mean and
// spread give the estimate and a 95% interval.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/search.hpp"

namespace lockstep::model {

struct SearchEstimate {
  std::uint64_t probes = 0;
  double executions = 0;      // the probes' mean
  double half_width = 0;      // of the 95% interval (Student's t over the probes)
  std::uint64_t replays = 0;  // executions run (prefixes re-run) by all probes
  std::uint64_t strata = 0;   // per level, at most (the probes' bound)
  double seconds = 0;         // host time
};

struct EstimateOptions {
  std::uint64_t probes = 8;
  // Strata kept per level; 0: as many as a budget of re-run steps per probe allows: a probe
  // past it is abandoned and the bound narrowed (deterministic: it depends on the program
  // only).
  std::size_t strata = 0;
  std::uint64_t steps_per_probe = 4'000'000;  // the budget when `strata` is 0 (about 1-2 s here)
  // With `strata` 0: the bound the first probe tries before the budget narrows it.
  std::size_t first_strata = 1 << 16;
  std::uint64_t seed = 1;
};

// Runs the probes on `executor` (which must run the scenario under an exploring oracle, as
// dfs does). Deterministic: the same program, options and build give the same estimate.
SearchEstimate estimate_search(Executor& executor, const EstimateOptions& options);

}  // namespace lockstep::model
