// The CSV of a sweep (docs/results.md, "Sweep CSV"): one line per row, the swept parameter
// values first, then the row's outcome and counts.
#pragma once

#include <string>
#include <string_view>

#include "report/row_report.hpp"

namespace lockstep::cli {

using report::MachineMeasurements;
using report::RowReport;
using report::ScenarioReport;

// Header: the parameter paths, in the order the rows give them, then result, property,
// matched, executions, sim_ops, steps, virtual_time_ns, elapsed_s, trace_sha256.
// Lines end in "\n"; fields are quoted as RFC 4180 says where they need it.
std::string sweep_csv(const ScenarioReport& report);

// `field` quoted when it holds a comma, a double quote, CR or LF (quotes doubled).
std::string csv_field(std::string_view field);

}  // namespace lockstep::cli
