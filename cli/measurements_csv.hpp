// Machine measurements as CSV: the latency histogram (lo_ns,hi_ns,count) and the c2c matrix
// (a header of CPU numbers, then one row per CPU).
#pragma once

#include <string>

#include "report/row_report.hpp"

namespace lockstep::cli {

using report::MachineMeasurements;
using report::RowReport;
using report::ScenarioReport;

std::string histogram_csv(const MachineMeasurements& m);
std::string c2c_csv(const MachineMeasurements& m);

}  // namespace lockstep::cli
