// Counterexample minimization: fewest preemptions first, then fewest steps (what users of
// CHESS and loom ask for: a schedule with few context switches is one a person can follow).
//
// A violation found by any strategy is searched for again with the preemption-bounded
// strategy at bounds 0, 1, 2, ... up to its own preemption count; the first bound that
// reproduces the same property gives the fewest preemptions (proven when every lower bound
// was searched exhaustively), and the rest of that bound's search keeps the shortest such
// schedule. Each bound's search is capped, so minimization always ends.
#pragma once

#include <cstdint>

#include "model/search.hpp"

namespace lockstep::model {

struct Counterexample {
  sim::Schedule schedule;
  std::uint64_t steps = 0;
  unsigned preemptions = 0;
  bool fewest_preemptions_proven = false;  // every smaller bound was searched exhaustively
  bool fewest_steps_proven = false;        // its bound was searched exhaustively too
  std::uint64_t executions = 0;            // spent minimizing
};

// Replays `schedule` and counts its preemptions (switches away from a thread that could
// have gone on, to another thread or to a store buffer's drain).
unsigned count_preemptions(Executor& executor, const sim::Schedule& schedule, std::uint64_t index);

// `verdict` decides what counts as the same violation (same property).
Counterexample minimize(Executor& executor, const Verdict& verdict, const sim::Schedule& found,
                        std::uint64_t found_index, std::uint64_t budget_per_bound);

}  // namespace lockstep::model
