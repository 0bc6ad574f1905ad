// What a row found, in the words of results (docs/results.md, `result`), and whether that is
// what its scenario expects:
//   pass         no execution violated a checked property;
//   violation    one did (`property` says which);
//   reachable    an execution's final state satisfies the `exists` condition `property`;
//   unreachable  the search ended without a violation or a witness of any `exists`
//                condition (a proof only when the search was exhaustive).
#pragma once

#include <optional>
#include <string>

#include "report/row_report.hpp"
#include "sim/exec/engine.hpp"
#include "spec/scenario.hpp"

namespace lockstep::scenario {

using report::RowReport;

// The violation or witness an execution reports, when the scenario checks its property.
// A lost wakeup is one kind of deadlock: where deadlock is checked and lost_wakeup is not,
// it counts as a deadlock.
// Whether a violation of `property` is reported for scenario `s`: it lists the property, or
// it is `invariant` (a design's broken assumption, P::invariant), which no list filters out.
bool reports_property(const Scenario& s, const std::string& property);

std::optional<sim::Violation> checked_violation(const Scenario& s, const sim::ExecutionResult& r);

// "pass", "violation: P", "reachable: N" or "unreachable: N".
std::string expected_text(const Expectation& e);

// Names the row's outcome (a witness found is `reachable`, a search that found none in a
// scenario with `exists` conditions is `unreachable`), then sets `expected` and `matched`,
// and records where the machine's numbers came from (RowReport::machine_source).
void judge(RowReport& report, const Scenario& scenario);

}  // namespace lockstep::scenario
