// Counterexample minimization: fewest preemptions first, then fewest steps (what users of
// CHESS and loom ask for: a schedule with few context switches is one a person can follow).
//
// A violation found by any strategy is searched for again with the preemption-bounded
// strategy at bounds 0, 1, 2, ... up to its own preemption count; the first bound that
// reproduces the same property gives the fewest preemptions (proven when every lower bound
// was searched exhaustively), and the rest of that bound's search keeps the shortest such
// schedule. Each bound's search is capped, and the whole is bounded in simulated steps and
// in host time (a random search that hit the step bound after a million steps
// spent minutes minimizing what it found in a second), so minimization always ends soon.
#pragma once

#include <cstdint>
#include <string>

#include "model/search.hpp"

namespace lockstep::model {

struct Counterexample {
  sim::Schedule schedule;
  std::uint64_t steps = 0;
  unsigned preemptions = 0;
  bool fewest_preemptions_proven = false;  // every smaller bound was searched exhaustively
  bool fewest_steps_proven = false;        // its bound was searched exhaustively too
  std::uint64_t executions = 0;            // spent minimizing
  std::uint64_t steps_spent = 0;           // simulated steps those executions ran
  // Empty when minimization ran to its end; otherwise why it stopped early or did not run
  // ("step budget", "time budget", "skipped: ..."): the schedule is then the best found.
  std::string stopped;
};

struct MinimizeBudget {
  std::uint64_t executions_per_bound = 20'000;
  // Simulated steps over all of minimization: deterministic, so the same scenario and seed
  // give the same minimized schedule on any host.
  std::uint64_t steps = 200'000'000;
  // Host seconds: a safety net only (a host that slow gives a less minimized schedule, and
  // the result says so).
  double seconds = 60;
};

// Replays `schedule` and counts its preemptions (switches away from a thread that could
// have gone on, to another thread or to a store buffer's drain).
unsigned count_preemptions(Executor& executor, const sim::Schedule& schedule, std::uint64_t index);

// `verdict` decides what counts as the same violation (same property).
// A step-bound violation (`bound_exceeded`) is not minimized: every execution that shows it
// runs to the bound, so no schedule is shorter, and each try costs the whole bound.
Counterexample minimize(Executor& executor, const Verdict& verdict, const sim::Schedule& found,
                        std::uint64_t found_index, const MinimizeBudget& budget, const std::string& property);

}  // namespace lockstep::model
