#include "gui/render/charts.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include <QFontMetrics>
#include <QPainter>
#include <QPen>

#include "gui/render/axis.hpp"
#include "gui/render/page.hpp"
#include "report/si_units.hpp"

namespace lockstep::view {

namespace {

constexpr int kAxisLeft = 64;    // room for the count labels
constexpr int kAxisBottom = 34;  // room for the latency labels and the axis title
constexpr int kHeatLabel = 44;   // CPU numbers left of and above the cells
constexpr int kMaxCell = 56;
constexpr int kMinCellForText = 30;
constexpr int kBarRow = 20;
constexpr int kBarLabel = 170;

// White to dark red as `f` goes from 0 to 1.
QColor heat(double f) {
  f = std::clamp(f, 0.0, 1.0);
  return QColor::fromRgbF(1.0 - 0.25 * f, 0.95 - 0.8 * f, 0.85 - 0.75 * f);
}

}  // namespace

void paint_histogram(QPainter& p, QRect area, const HistogramChart& chart) {
  p.setFont(Page::body_font());
  const QRect plot = area.adjusted(kAxisLeft, 8, -10, -kAxisBottom);
  p.setPen(QColor(120, 120, 120));
  p.drawRect(plot);
  if (chart.bins.empty()) {
    p.drawText(plot, Qt::AlignCenter, "no samples");
    return;
  }
  std::uint64_t lo = chart.bins.front().lo_ns, hi = chart.bins.front().hi_ns, most = 0;
  for (const HistogramBin& b : chart.bins) {
    lo = std::min(lo, b.lo_ns);
    hi = std::max(hi, b.hi_ns);
    most = std::max(most, b.count);
  }
  // As doubles, a range narrower than their spacing (one bin at 10^16 ns) would be empty:
  // widen it to a millionth of its magnitude, so the bar and the axis still show.
  const double mid = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
  const double half = std::max((static_cast<double>(hi) - static_cast<double>(lo)) / 2, std::abs(mid) * 1e-6);
  const double x0 = lo == 0 ? 0 : mid - half, x1 = lo == 0 ? static_cast<double>(hi) : mid + half;
  auto x_of = [&](double ns) { return plot.left() + (ns - x0) / (x1 - x0) * plot.width(); };
  // The count axis: linear from 0, or log10 from 1 (a bar of 1 is then empty, 0 is not drawn);
  // a little above the tallest bar, so its top is seen.
  const double tallest = static_cast<double>(std::max<std::uint64_t>(most, 1));
  const double top = chart.log_count ? std::max(1.0, std::ceil(std::log10(tallest) + 0.05)) : tallest * 1.05;
  auto y_of = [&](double count) {
    const double v = chart.log_count ? (count > 0 ? std::log10(count) : 0) : count;
    return plot.bottom() - v / top * plot.height();
  };
  // Grid and count labels.
  std::vector<double> ticks;
  if (chart.log_count)
    for (int e = 0; e <= static_cast<int>(top); ++e) ticks.push_back(std::pow(10.0, e));
  else
    ticks = axis_ticks(0, top, std::max(1.0, nice_step(top / 5)));
  for (double c : ticks) {
    const double y = y_of(c);
    p.setPen(QColor(235, 235, 235));
    p.drawLine(QPointF(plot.left() + 1, y), QPointF(plot.right() - 1, y));
    p.setPen(QColor(80, 80, 80));
    p.drawText(QRectF(area.left(), y - 8, kAxisLeft - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               count_text(static_cast<std::uint64_t>(c)));
  }
  // Bars.
  for (const HistogramBin& b : chart.bins) {
    if (b.count == 0) continue;
    const double bx0 = x_of(static_cast<double>(b.lo_ns)), bx1 = x_of(static_cast<double>(b.hi_ns));
    // At least 2 px, so a bin of one sample still shows on the log scale (where log10(1) is 0).
    const double y = std::min(y_of(static_cast<double>(b.count)), plot.bottom() - 2.0);
    p.fillRect(QRectF(bx0, y, std::max(1.0, bx1 - bx0 - (bx1 - bx0 > 3 ? 1 : 0)), plot.bottom() - y),
               QColor(66, 133, 244));
  }
  // Latency axis.
  // Latencies are whole nanoseconds: no tick between two of them.
  p.setPen(QColor(80, 80, 80));
  for (const double t : axis_ticks(x0, x1, std::max(1.0, (x1 - x0) / std::max(1.0, plot.width() / 80.0)))) {
    const double x = x_of(t);
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, 14), Qt::AlignHCenter | Qt::AlignTop, QString::number(t));
  }
  p.drawText(QRect(plot.left(), area.bottom() - 14, plot.width(), 14), Qt::AlignHCenter,
             chart.log_count ? "latency (ns); count on a log scale" : "latency (ns)");
  // Peaks.
  for (std::size_t i = 0; i < chart.peaks_ns.size(); ++i) {
    const double x = x_of(chart.peaks_ns[i]);
    if (x < plot.left() || x > plot.right()) continue;
    p.setPen(QPen(QColor(211, 47, 47), 1.5, Qt::DashLine));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(QColor(211, 47, 47));
    const QString label = QString("peak %1 ns").arg(chart.peaks_ns[i]);
    const int w = QFontMetrics(Page::body_font()).horizontalAdvance(label) + 6;
    const double lx = x + 4 + w > plot.right() ? x - 4 - w : x + 4;
    p.drawText(QRectF(lx, plot.top() + 4 + 16 * static_cast<double>(i), w, 16), Qt::AlignLeft, label);
  }
}

int heatmap_height(std::size_t cpus, int width) {
  if (cpus == 0) return 0;
  const int cell = std::clamp((width - kHeatLabel - 200) / static_cast<int>(cpus), 2, kMaxCell);
  constexpr int kLegend = 104;  // the color ramp beside the cells
  return kHeatLabel + std::max(cell * static_cast<int>(cpus), kLegend) + 8;
}

void paint_heatmap(QPainter& p, QRect area, const std::vector<int>& cpus, const std::vector<std::vector<double>>& m) {
  const std::size_t n = std::min(cpus.size(), m.size());
  if (n == 0) return;
  const int cell = std::clamp((area.width() - kHeatLabel - 200) / static_cast<int>(n), 2, kMaxCell);
  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j) {
        lo = any ? std::min(lo, m[i][j]) : m[i][j];
        hi = any ? std::max(hi, m[i][j]) : m[i][j];
        any = true;
      }
  QFont small = Page::body_font();
  small.setPixelSize(cell >= kMinCellForText + 10 ? 11 : 9);
  p.setFont(small);
  const QPoint origin(area.left() + kHeatLabel, area.top() + kHeatLabel);
  const bool labels = cell >= 14;
  for (std::size_t i = 0; i < n; ++i) {
    if (labels) {
      p.setPen(QColor(80, 80, 80));
      const int at = static_cast<int>(i) * cell;
      p.drawText(QRect(origin.x() + at, area.top() + kHeatLabel - 18, cell, 16), Qt::AlignCenter,
                 QString::number(cpus[i]));
      p.drawText(QRect(area.left(), origin.y() + at, kHeatLabel - 6, cell), Qt::AlignRight | Qt::AlignVCenter,
                 QString::number(cpus[i]));
    }
    for (std::size_t j = 0; j < n; ++j) {
      const QRect r(origin.x() + static_cast<int>(j) * cell, origin.y() + static_cast<int>(i) * cell, cell, cell);
      const double f = hi > lo ? (m[i][j] - lo) / (hi - lo) : 0.5;
      const QColor c = i == j ? QColor(224, 224, 224) : heat(f);
      p.fillRect(r, c);
      if (cell >= kMinCellForText && i != j) {
        p.setPen(c.lightnessF() < 0.5 ? Qt::white : Qt::black);
        p.drawText(r, Qt::AlignCenter, QString::number(m[i][j], 'f', 1));
      }
    }
  }
  p.setPen(QColor(80, 80, 80));
  p.setFont(Page::body_font());
  p.drawText(QRect(area.left(), area.top(), 400, 18), Qt::AlignLeft, "from CPU (rows) to CPU (columns)");
  // Legend: the color ramp from the lowest to the highest off-diagonal latency.
  const int lx = origin.x() + static_cast<int>(n) * cell + 24;
  for (int k = 0; k < 100; ++k) p.fillRect(QRect(lx, origin.y() + k, 18, 1), heat(k / 99.0));
  p.drawText(QPoint(lx + 24, origin.y() + 10), ns_text(lo));
  p.drawText(QPoint(lx + 24, origin.y() + 100), ns_text(hi));
}

int bars_height(std::size_t bars) { return static_cast<int>(bars) * kBarRow + 4; }

void paint_bars(QPainter& p, QRect area, const std::vector<std::pair<QString, double>>& bars) {
  double most = 0, total = 0;
  for (const auto& [label, v] : bars) {
    most = std::max(most, v);
    total += v;
  }
  p.setFont(Page::body_font());
  const QFontMetrics fm(Page::body_font());
  const int bar_w = std::max(50, area.width() - kBarLabel - 170);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int y = area.top() + static_cast<int>(i) * kBarRow;
    p.setPen(Qt::black);
    p.drawText(QRect(area.left(), y, kBarLabel - 8, kBarRow), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(bars[i].first, Qt::ElideRight, kBarLabel - 8));
    const double w = most > 0 ? bars[i].second / most * bar_w : 0;
    p.fillRect(QRectF(area.left() + kBarLabel, y + 4, std::max(1.0, w), kBarRow - 8), QColor(255, 167, 38));
    const QString value = QString("%1  (%2%)")
                              .arg(count_text(static_cast<std::uint64_t>(bars[i].second)))
                              .arg(total > 0 ? 100.0 * bars[i].second / total : 0, 0, 'f', 1);
    p.drawText(QRect(area.left() + kBarLabel + static_cast<int>(w) + 6, y, 160, kBarRow),
               Qt::AlignLeft | Qt::AlignVCenter, value);
  }
}

}  // namespace lockstep::view

namespace lockstep::view {

namespace {

constexpr int kSweepLeft = 78;    // the figure's tick labels
constexpr int kSweepTop = 22;     // the figure's title
constexpr int kSweepBottom = 40;  // the parameter's tick labels and title
constexpr int kSwatch = 22;       // a legend entry's line
constexpr double kMarker = 3.5;

QColor series_color(std::size_t i) {
  static const QColor kPalette[] = {QColor(33, 102, 172), QColor(214, 96, 77),  QColor(27, 120, 55),
                                    QColor(118, 42, 131), QColor(224, 130, 20), QColor(53, 151, 143),
                                    QColor(140, 81, 10),  QColor(90, 90, 90)};
  return kPalette[i % std::size(kPalette)];
}

// A value's place along an axis from `lo` to `hi` (log10 of both when `log`), as 0 to 1.
double fraction(double v, double lo, double hi, bool log) {
  if (log) {
    v = std::log10(v);
    lo = std::log10(lo);
    hi = std::log10(hi);
  }
  return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

// The lowest and highest x (or y) of all the chart's points.
std::pair<double, double> extent(const SweepChart& chart, double SweepPoint::*coordinate) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const SweepSeries& s : chart.series)
    for (const SweepPoint& p : s.points) {
      lo = any ? std::min(lo, p.*coordinate) : p.*coordinate;
      hi = any ? std::max(hi, p.*coordinate) : p.*coordinate;
      any = true;
    }
  return {lo, hi};
}

struct YAxis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
};

// Linear from zero (or the lowest value, if negative) to a little above the highest; log10 from
// the decade below the lowest to the decade above the highest, ticked at 1, 2 and 5 when it
// spans few decades.
YAxis y_axis(const SweepChart& chart) {
  const auto [lo, hi] = extent(chart, &SweepPoint::y);
  YAxis a;
  if (chart.log_y) {
    const int e0 = static_cast<int>(std::floor(std::log10(lo))), e1 = static_cast<int>(std::ceil(std::log10(hi)));
    a.lo = std::pow(10.0, e0);
    a.hi = std::pow(10.0, std::max(e1, e0 + 1));
    for (int e = e0; e <= e1; ++e)
      for (double m : e1 - e0 <= 3 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double t = m * std::pow(10.0, e);
        if (t >= a.lo * 0.999 && t <= a.hi * 1.001) a.ticks.push_back(t);
      }
    return a;
  }
  a.lo = std::min(0.0, lo);
  // A range of one value gets some width (at -1e18, adding 1 changes nothing).
  a.hi = hi > a.lo ? hi + (hi - a.lo) * 0.08 : a.lo + std::max(1.0, std::abs(a.lo) * 0.1);
  a.ticks = axis_ticks(a.lo, a.hi, (a.hi - a.lo) / 8);  // five to eight ticks
  return a;
}

int legend_width(const SweepChart& chart, const QFontMetrics& fm) {
  if (chart.series.size() < 2 && chart.series_name.empty()) return 0;
  int w = fm.horizontalAdvance(QString::fromStdString(chart.series_name));
  for (const SweepSeries& s : chart.series)
    w = std::max(w, kSwatch + 8 + fm.horizontalAdvance(QString::fromStdString(s.label)));
  return w + 24;
}

}  // namespace

void paint_sweep_chart(QPainter& p, QRect area, const SweepChart& chart) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setFont(Page::body_font());
  const QFontMetrics fm(Page::body_font());
  const int legend = legend_width(chart, fm);
  const QRect plot = area.adjusted(kSweepLeft, kSweepTop, -10 - legend, -kSweepBottom);
  const report::SiStyle style{"\u00b5", 3, true};
  const YAxis y = y_axis(chart);
  const auto [x_lo, x_hi] = extent(chart, &SweepPoint::x);
  // A margin of 4% of the width either side, so the end points are not on the frame.
  auto x_of = [&](double v) {
    return plot.left() + plot.width() * (0.04 + 0.92 * fraction(v, x_lo, x_hi, chart.log_x));
  };
  auto y_of = [&](double v) { return plot.bottom() - plot.height() * fraction(v, y.lo, y.hi, chart.log_y); };

  // The figure's grid and tick labels, and its title above.
  for (double t : y.ticks) {
    const double py = y_of(t);
    p.setPen(QColor(232, 232, 232));
    p.drawLine(QPointF(plot.left() + 1, py), QPointF(plot.right() - 1, py));
    p.setPen(QColor(80, 80, 80));
    p.drawText(QRectF(area.left(), py - 8, kSweepLeft - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               QString::fromStdString(report::format_si(t * chart.y_scale, chart.y_unit, style)));
  }
  p.drawText(QRect(area.left(), area.top(), area.width(), kSweepTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
             QString::fromStdString(chart.y_name + (chart.y_unit.empty() ? "" : " (" + chart.y_unit + ")")) +
                 (chart.log_y ? ", log scale" : ""));
  // The parameter's ticks at the swept values, a label where it does not overlap the last one.
  std::set<double> xs;
  std::vector<std::pair<double, QString>> ticks;
  for (const SweepSeries& s : chart.series)
    for (const SweepPoint& pt : s.points)
      if (xs.insert(pt.x).second) ticks.emplace_back(pt.x, QString::fromStdString(pt.x_text));
  std::sort(ticks.begin(), ticks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double last_right = -1e9;
  for (const auto& [v, text] : ticks) {
    const double px = x_of(v);
    p.setPen(QColor(232, 232, 232));
    p.drawLine(QPointF(px, plot.top() + 1), QPointF(px, plot.bottom() - 1));
    p.setPen(QColor(80, 80, 80));
    p.drawLine(QPointF(px, plot.bottom()), QPointF(px, plot.bottom() + 4));
    const int w = fm.horizontalAdvance(text);
    if (px - w / 2.0 < last_right + 6) continue;
    p.drawText(QRectF(px - w / 2.0 - 2, plot.bottom() + 5, w + 4, 16), Qt::AlignCenter, text);
    last_right = px + w / 2.0;
  }
  p.drawText(QRect(plot.left(), area.bottom() - 16, plot.width(), 16), Qt::AlignHCenter,
             QString::fromStdString(chart.x_name) + (chart.log_x ? " (log scale)" : ""));
  p.setPen(QColor(120, 120, 120));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);

  // The series: lines through the points, a dot on each.
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const QColor c = series_color(i);
    QPolygonF line;
    for (const SweepPoint& pt : chart.series[i].points) line << QPointF(x_of(pt.x), y_of(pt.y));
    p.setPen(QPen(c, 2));
    p.drawPolyline(line);
    p.setBrush(c);
    for (const QPointF& at : line) p.drawEllipse(at, kMarker, kMarker);
    p.setBrush(Qt::NoBrush);
  }
  // The legend, right of the plot: what tells the series apart, then one entry per series.
  if (legend > 0) {
    const int lx = plot.right() + 18;
    int ly = plot.top();
    p.setPen(Qt::black);
    if (!chart.series_name.empty()) {
      p.drawText(QRect(lx, ly, legend, 18), Qt::AlignLeft | Qt::AlignVCenter,
                 QString::fromStdString(chart.series_name));
      ly += 20;
    }
    for (std::size_t i = 0; i < chart.series.size(); ++i, ly += 20) {
      const QColor c = series_color(i);
      p.setPen(QPen(c, 2));
      p.drawLine(QPointF(lx, ly + 9), QPointF(lx + kSwatch, ly + 9));
      p.setBrush(c);
      p.drawEllipse(QPointF(lx + kSwatch / 2.0, ly + 9), kMarker, kMarker);
      p.setBrush(Qt::NoBrush);
      p.setPen(Qt::black);
      p.drawText(QRect(lx + kSwatch + 8, ly, legend - kSwatch - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
                 QString::fromStdString(chart.series[i].label));
    }
  }
  p.restore();
}

}  // namespace lockstep::view
