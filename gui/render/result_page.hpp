// The result view's page: one result row's verdict, key figures, workload figures, latency
// histogram, core-to-core heatmap, access sources, counterexample and the files it names, with
// a table of every row when the file holds more than one, and a sweep's chart. QtGui only.
#pragma once

#include <cstddef>
#include <optional>

#include <QString>

#include "gui/model/result.hpp"
#include "gui/render/page.hpp"

namespace lockstep::view {

struct ResultPageOptions {
  std::size_t scenario = 0;  // index into ResultFile::scenarios
  std::size_t row = 0;       // index into that scenario's rows
  bool log_count = false;    // the histogram's count axis
  QString file;              // the result file's path, shown in the header
};

// Every row of the file in order, as (scenario index, row index): what the view lets one pick.
std::vector<std::pair<std::size_t, std::size_t>> result_rows(const ResultFile& result);

Page result_page(const ResultFile& result, const ResultPageOptions& options, int width);

// The chart of the file's first sweep that has one (gui/model/sweep_chart.hpp), alone under its
// heading: `lockstep-view --screenshot --view sweep`. Nothing when no scenario has a chart.
std::optional<Page> sweep_page(const ResultFile& result, int width);

}  // namespace lockstep::view
