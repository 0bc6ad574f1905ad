// The summary table a command prints at its end: one aligned line per scenario (and one
// indented line per row of a sweep), then the totals.
#pragma once

#include <string>
#include <vector>

#include "report/row_report.hpp"

namespace lockstep::cli {

using report::MachineMeasurements;
using report::RowReport;
using report::ScenarioReport;

// Columns: scenario, expected, result, executions, time, and "ok" or "MISMATCH". With
// `color`, the mark is green or red (ANSI escapes); the alignment is the same either way.
std::string summary_table(const std::vector<ScenarioReport>& reports, bool color = false);

}  // namespace lockstep::cli
