// The chart of a sweep (the result view's "Sweep" section, `lockstep-view --screenshot --view
// sweep`): a swept numeric parameter on x, the workload's headline figure (report/headline_figures.hpp)
// on y, one series per value of the other swept parameters (futex hash: ops/s against futexes
// per thread, one line per design). No Qt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gui/model/result.hpp"

namespace lockstep::view {

struct SweepPoint {
  double x = 0;
  double y = 0;        // the figure's raw value, as in the file (ns for a *_ns figure)
  std::string x_text;  // the parameter's value as the file writes it: "4096"
};

struct SweepSeries {
  std::string label;               // the other parameters' values: "baseline"; "a=1, b=x" for several; "" for none
  std::vector<SweepPoint> points;  // by x, ascending
};

struct SweepChart {
  std::string x_name;               // the parameter on x: "workload.futexes"
  std::string y_name;               // the figure on y: "ops_per_s"
  std::string y_unit;               // its unit once scaled: "ops/s", "s"
  double y_scale = 1;               // raw * y_scale is in y_unit (1e-9 for nanoseconds)
  std::string series_name;          // what tells the series apart: "design.futex"; "" for one series
  bool log_x = false;               // x spans two decades or more (1 to 4096), all above zero
  bool log_y = false;               // likewise for y
  std::vector<SweepSeries> series;  // in the order their first rows appear
};

// The chart of a swept scenario, or nothing when it has no numeric parameter with two values
// or more, or its rows report no headline figure. With several numeric parameters, x is the
// one with the most distinct values (the first of them on a tie); the others label series.
std::optional<SweepChart> sweep_chart(const ScenarioResult& scenario);

// The first scenario of the file that has a chart, as (index, chart).
std::optional<std::pair<std::size_t, SweepChart>> first_sweep_chart(const ResultFile& result);

}  // namespace lockstep::view
