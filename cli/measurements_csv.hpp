// Machine measurements as CSV: the latency histogram (lo_ns,hi_ns,count) and the c2c matrix
// (a header of CPU numbers, then one row per CPU).
#pragma once

#include <string>

#include "scenario/report.hpp"

namespace lockstep::cli {

using scenario::MachineMeasurements;
using scenario::RowReport;
using scenario::ScenarioReport;

std::string histogram_csv(const MachineMeasurements& m);
std::string c2c_csv(const MachineMeasurements& m);

}  // namespace lockstep::cli
