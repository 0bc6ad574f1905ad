// Charts of the report views, painted with QPainter into a given rectangle: a latency
// histogram (linear or log count, peaks marked), a core-to-core latency heatmap with its
// values, horizontal bars for counts (operation kinds, access sources), and a sweep's figure
// against its numeric parameter, one line per series. QtGui only.
#pragma once

#include <utility>
#include <vector>

#include <QRect>
#include <QString>

#include "gui/model/samples.hpp"
#include "gui/model/sweep_chart.hpp"

class QPainter;

namespace lockstep::view {

struct HistogramChart {
  std::vector<HistogramBin> bins;
  std::vector<double> peaks_ns;  // marked with a dashed line and their value
  bool log_count = false;        // counts on a log10 axis, so rare latencies still show
};

constexpr int kHistogramHeight = 240;
void paint_histogram(QPainter& painter, QRect area, const HistogramChart& chart);

// The height the heatmap of n CPUs takes at `width`, with its labels and legend.
int heatmap_height(std::size_t cpus, int width);
// matrix[i][j]: latency from cpus[i] to cpus[j]; the diagonal is not a latency and is shown grey.
void paint_heatmap(QPainter& painter, QRect area, const std::vector<int>& cpus,
                   const std::vector<std::vector<double>>& matrix_ns);

int bars_height(std::size_t bars);
// One bar per (label, value), scaled to the largest, each with its value and share of the total.
void paint_bars(QPainter& painter, QRect area, const std::vector<std::pair<QString, double>>& bars);

constexpr int kSweepChartHeight = 340;
// x: the parameter (log10 when the chart says so), ticked at the swept values; y: the figure in
// its unit with SI prefixes ("1 G ops/s", "500 µs"), from zero or on log10; a legend of the series.
void paint_sweep_chart(QPainter& painter, QRect area, const SweepChart& chart);

}  // namespace lockstep::view
