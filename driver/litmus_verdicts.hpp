// The model checker's verdict on each final condition of a thread-program scenario, for a
// native litmus run to be held against (driver/native_litmus.hpp): the search `lockstep check`
// runs (the scenario's strategy and bounds; dfs where the scenario asks for a timed run,
// which proves nothing), once per condition so that each gets its own verdict, under a given
// memory model. No schedule or trace is written.
#pragma once

#include <vector>

#include "report/litmus_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// The conditions a native run of `s` is judged by, in order: its `exists` conditions, its
// checked `forall` conditions, then `assertion` and `bound_exceeded` (kind "property"), and
// `deadlock` and `lost_wakeup` (kind "hang": natively, a run the watchdog finds stuck), each
// where the scenario checks it and the program has an op that can report it. Counts and
// verdicts are left empty.
std::vector<report::LitmusCondition> litmus_conditions(const scenario::Scenario& s);

// Searches `s` under `model` for each condition; one verdict per condition, in order.
std::vector<report::LitmusVerdict> check_conditions(const scenario::Scenario& s,
                                                    const std::vector<report::LitmusCondition>& conditions,
                                                    scenario::MemoryModel model);

}  // namespace lockstep::driver
