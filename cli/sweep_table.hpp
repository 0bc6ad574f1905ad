// The figures of a sweep as a table for the terminal: one line per row, a column per swept
// parameter that varies, the workload's headline figures (report/headline_figures.hpp) with SI
// prefixes ("1.00 G ops/s", "850 ns"), and the row's verdict. The CSV and JSON keep the raw
// numbers; this is for reading.
#pragma once

#include <string>

#include "report/row_report.hpp"

namespace lockstep::cli {

using report::RowReport;
using report::ScenarioReport;

// Empty when the report is not a sweep or no row reports a headline figure (a correctness
// sweep: its rows' verdicts are printed already). Otherwise an empty line, a title line, a
// header and the rows, columns aligned: numeric parameters and figures to the right, text to the left.
std::string sweep_table(const ScenarioReport& report);

}  // namespace lockstep::cli
