// Which of a workload's figures (report/workload_figures.hpp declares them and their ranks)
// say what a sweep row measured, and in what unit: futex-hash's ops_per_s, futex-wake's
// wake_ns_per_round, futex-pingpong's round_trips_per_s. The sweep table (cli/sweep_table.hpp)
// shows them as columns; the viewer's sweep chart plots the first. Plain C++.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/si_units.hpp"

namespace lockstep::report {

struct HeadlineFigure {
  std::string_view name;  // the figure's name in the result JSON and CSV: "wake_ns_per_round"
  std::string_view unit;  // the unit it is shown in: "ops/s", "s", "" (a plain number)
  double scale = 1;       // multiplies the raw value into `unit` (1e-9: nanoseconds shown as seconds)
};

// The headline figures among `names` (one row's figure names, any order), most telling first;
// empty when none of them is a known headline (a workload without figures, a correctness run).
std::vector<HeadlineFigure> headline_figures(const std::vector<std::string>& names);

// The figure's raw value in its unit with an SI prefix: 1.00266e9 ops_per_s is "1.00 G ops/s",
// 850.4 wake_ns_per_round is "850 ns".
std::string format_figure(const HeadlineFigure& figure, double raw, const SiStyle& style = {});

}  // namespace lockstep::report
