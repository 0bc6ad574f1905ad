// Terminal renderings of machine measurements: the latency histogram (log-spaced rows, so
// that 1.5 ns cache hits and 500 ns remote misses fit one screen) and the c2c matrix.
#pragma once

#include <string>

#include "report/row_report.hpp"

namespace lockstep::report {

std::string render_histogram(const MachineMeasurements& m, int rows = 24, int width = 50);
std::string render_c2c(const MachineMeasurements& m);
// The ccbench table: one row per measuring CPU with its distance from the line's holder.
std::string render_ccbench(const MachineMeasurements& m);

}  // namespace lockstep::report
