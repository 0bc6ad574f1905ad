// The statistics panel's page: what compute_statistics found in a selection of a trace, as
// figures, charts and tables. QtGui only.
#pragma once

#include "gui/model/statistics.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/page.hpp"

namespace lockstep::view {

struct StatsPageOptions {
  bool log_count = false;  // the latency histogram's count axis
};

Page stats_page(const Trace& trace, const Statistics& stats, int width, const StatsPageOptions& options = {});

}  // namespace lockstep::view
