// Axis ticks (gui/render/axis.hpp) and the charts that use them, on the ranges that once hung
// the viewer: a latency of 10^16 ns, a histogram bin at 10^16, a sweep whose rows
// are all y = -1e18. Each must paint, quickly, with a short list of ticks.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <QImage>
#include <QPainter>

#include "gui/render/axis.hpp"
#include "gui/render/charts.hpp"
#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

void app() { testing::qt_app(); }

}  // namespace

TEST_CASE("axis ticks are short lists for any finite range, and exact multiples of their step") {
  CHECK(axis_ticks(0, 10, 2) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(axis_ticks(-3, 3, 1) == std::vector<double>{-3, -2, -1, 0, 1, 2, 3});
  // At 10^16 a step of 1 is below the spacing of doubles: the step grows instead of stalling.
  const std::vector<double> huge = axis_ticks(1e16, 1e16 + 1, 1);
  CHECK(huge.size() <= 64);
  const std::vector<double> flat = axis_ticks(-1e18, -1e18, 1);
  CHECK(flat.size() <= 1);
  const std::vector<double> wide = axis_ticks(-1e300, 1e300, 1);
  CHECK(!wide.empty());
  CHECK(wide.size() <= 64);
  for (const double t : axis_ticks(0, 1e19, 1e18)) CHECK(std::fmod(t, 1e18) == 0);
  CHECK(axis_ticks(0, std::numeric_limits<double>::infinity(), 1).empty());
  CHECK(axis_ticks(std::nan(""), 1, 1).empty());
  CHECK(axis_ticks(5, 1, 1).empty());
}

TEST_CASE("charts paint ranges that once hung the viewer") {
  app();
  QImage image(900, 400, QImage::Format_ARGB32);
  QPainter p(&image);
  SECTION("a histogram with one bin at 10^16 ns") {
    const std::uint64_t at = 10'000'000'000'000'000ULL;
    paint_histogram(p, QRect(0, 0, 900, kHistogramHeight),
                    HistogramChart{{HistogramBin{at, at + 1, 1}}, {1e16}, false});
    paint_histogram(p, QRect(0, 0, 900, kHistogramHeight), HistogramChart{{HistogramBin{at, at + 1, 1}}, {}, true});
  }
  SECTION("a sweep whose two rows are both y = -1e18") {
    SweepChart chart;
    chart.x_name = "workload.threads";
    chart.y_name = "ops_per_s";
    chart.series.push_back(SweepSeries{"", {SweepPoint{1, -1e18, "1"}, SweepPoint{2, -1e18, "2"}}});
    paint_sweep_chart(p, QRect(0, 0, 900, 400), chart);
  }
  p.end();
  CHECK(!image.isNull());
}

}  // namespace lockstep::view
