// How a scenario asks to be explored (docs/scenarios.md, "strategy"): the kind of search and
// its bounds. The scenario loader fills it in; model/exploration.hpp turns it into a search.
#pragma once

#include <cstdint>
#include <optional>

namespace lockstep::model {

// smt is not an exploration: the driver asks the axiomatic checker (axiomatic/) instead.
enum class StrategyKind : std::uint8_t { timed, random, dfs, bounded, pct, naive, smt };
const char* name_of(StrategyKind kind);

struct StrategySpec {
  StrategyKind kind = StrategyKind::random;
  std::uint64_t seed = 1;
  // random, pct: executions to run; dfs, bounded, naive: the most to run before giving up on
  // exhausting the space (the result then says exhaustive: false).
  std::uint64_t executions = 1000;
  std::uint64_t max_steps = 1'000'000;
  // bounded: exactly one of these.
  std::optional<unsigned> preemption_bound;
  std::optional<unsigned> delay_bound;
  unsigned depth = 3;              // pct: the bug depth d
  std::uint64_t choice_points = 0; // pct: k; 0 = measured from a few random executions
  unsigned workers = 1;            // parallel search (random, pct, dfs, bounded)
  bool minimize = true;            // minimize a counterexample before reporting it
  unsigned unroll = 0;             // smt: `while` iterations encoded (0: each loop's own bound)
};

}  // namespace lockstep::model
