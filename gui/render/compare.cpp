#include "gui/render/compare.hpp"

#include <algorithm>
#include <cmath>

#include <QFontMetrics>
#include <QPainter>

#include "report/si_units.hpp"

namespace lockstep::view {

namespace {

constexpr int kTitleHeight = 22;

QString q(const std::string& s) { return QString::fromStdString(s); }

// A row of A, B and B - A ("+12", "-3 ns", "0").
QStringList numbers_row(const QString& what, double a, double b, bool as_ns) {
  auto text = [as_ns](double v) { return as_ns ? ns_text(v) : QString::number(v, 'g', 15); };
  const double d = b - a;
  return {what, text(a), text(b), (d > 0 ? "+" : "") + text(d)};
}

void timeline(Page& page, const Trace& trace, const QString& title, TimeWindow window, double scale) {
  QString line = QString("%1 (%2): %3  |  outcome %4  |  end %5 ns, %6 %7")
                     .arg(title, trace.native ? "native" : "simulated",
                          q(trace.name.empty() ? trace.scenario : trace.name), q(trace.outcome))
                     .arg(trace.end_time)
                     .arg(trace.end_steps)
                     .arg(trace.native ? "events" : "steps");
  if (trace.sample > 1) line += QString("  |  1 in %1 lock holds recorded").arg(trace.sample);
  if (trace.dropped_events > 0) line += QString("  |  %1 events dropped").arg(trace.dropped_events);
  if (scale != 1) line += QString("  |  own time scale (x%1)").arg(scale, 0, 'g', 3);
  page.add(kTitleHeight, [line](QPainter& p, QRect r) {
    p.setFont(Page::heading_font());
    p.setPen(Qt::black);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(Page::heading_font()).elidedText(line, Qt::ElideRight, r.width()));
  });
  // The page's blocks outlive this call: the timeline keeps the trace by pointer (the caller owns it).
  const Trace* t = &trace;
  page.add(TimelineLayout::content_height(trace),
           [t, window](QPainter& p, QRect r) { paint_timeline(p, *t, r, window); });
}

QString metric_text(double v, const std::string& unit) {
  if (unit == "ns") return ns_text(v);
  if (unit == "/s") return q(report::format_si(v, "/s", report::SiStyle{.micro = "\u00b5"}));
  return QString::number(v, 'f', 0);
}

// A, B and B's difference from A in percent; rows that differ by 10% or more are tinted
// [guess: the goal for latencies is 10%].
void metrics(Page& page, const Comparison& c) {
  constexpr double kNotablePct = 10;
  std::vector<QStringList> rows;
  std::vector<bool> notable;
  for (const MetricRow& m : c.metrics) {
    if (!m.value[0] && !m.value[1]) continue;
    QStringList row{q(m.name)};
    for (const auto& v : m.value) row << (v ? metric_text(*v, m.unit) : QString("-"));
    row << (m.difference_pct ? QString("%1%2%").arg(*m.difference_pct >= 0 ? "+" : "").arg(*m.difference_pct, 0, 'f', 1)
                             : QString("-"));
    rows.push_back(row);
    notable.push_back(m.difference_pct && std::abs(*m.difference_pct) >= kNotablePct);
  }
  page.heading("Figures (B against A; rates per second of each trace's own duration)");
  page.table({"figure", "A", "B", "B vs A"}, rows, notable);
}

void totals(Page& page, const Comparison& c) {
  std::vector<QStringList> rows;
  rows.push_back({"outcome", q(c.outcome[0]), q(c.outcome[1]), c.outcome[0] == c.outcome[1] ? "" : "differs"});
  rows.push_back({"finding", q(c.finding[0]), q(c.finding[1]), c.finding[0] == c.finding[1] ? "" : "differs"});
  rows.push_back(
      numbers_row("end time", static_cast<double>(c.end_time_ns[0]), static_cast<double>(c.end_time_ns[1]), true));
  rows.push_back(numbers_row("steps", static_cast<double>(c.steps[0]), static_cast<double>(c.steps[1]), false));
  rows.push_back(numbers_row("operations", static_cast<double>(c.ops[0]), static_cast<double>(c.ops[1]), false));
  for (const auto& [kind, n] : c.op_counts)
    rows.push_back(numbers_row("  " + q(kind), static_cast<double>(n[0]), static_cast<double>(n[1]), false));
  const Pair<LockTimes>& l = c.locks;
  rows.push_back(numbers_row("lock acquisitions", static_cast<double>(l[0].wait.count),
                             static_cast<double>(l[1].wait.count), false));
  rows.push_back(numbers_row("lock wait total", static_cast<double>(l[0].wait.total_ns),
                             static_cast<double>(l[1].wait.total_ns), true));
  rows.push_back(numbers_row("lock hold total", static_cast<double>(l[0].hold.total_ns),
                             static_cast<double>(l[1].hold.total_ns), true));
  std::vector<bool> differs;
  for (const QStringList& r : rows) differs.push_back(r[1] != r[2]);
  page.heading("Differences (B - A)");
  page.table({"", "A", "B", "B - A"}, rows, differs);
}

void thread_times(Page& page, const Comparison& c) {
  std::vector<QStringList> rows;
  std::vector<bool> differs;
  for (const ThreadComparison& th : c.threads)
    for (ThreadState st : {ThreadState::running, ThreadState::spinning, ThreadState::parked, ThreadState::ready}) {
      const auto a = static_cast<double>(th.times[0].in(st)), b = static_cast<double>(th.times[1].in(st));
      if (a == 0 && b == 0) continue;
      const QString name = q(th.name[0].empty() ? th.name[1] : th.name[0]);
      QStringList row = numbers_row(name + " " + q(std::string(to_string(st))), a, b, true);
      rows.push_back(row);
      differs.push_back(a != b);
    }
  page.heading("Time per thread and state");
  page.table({"thread, state", "A", "B", "B - A"}, rows, differs);
}

}  // namespace

double compare_scale(const Trace& a, const Trace& b) {
  const double ea = std::max<double>(1, static_cast<double>(a.end_time));
  const double eb = std::max<double>(1, static_cast<double>(b.end_time));
  return std::max(ea, eb) > kOwnScaleRatio * std::min(ea, eb) ? eb / ea : 1;
}

TimeWindow compare_window(const Trace& a, const Trace& b) {
  const double end = std::max<double>(
      1, static_cast<double>(compare_scale(a, b) == 1 ? std::max(a.end_time, b.end_time) : a.end_time));
  return TimeWindow{-0.02 * end, end * 1.04};
}

ComparePageOptions compare_options(const Trace& a, const Trace& b, TimeWindow window, const QString& name_a,
                                   const QString& name_b) {
  ComparePageOptions o{window, name_a, name_b, std::nullopt};
  if (const double scale = compare_scale(a, b); scale != 1)
    o.window_b = TimeWindow{window.t0 * scale, window.t1 * scale};
  return o;
}

int compare_timelines_height(const Trace& a, const Trace& b) {
  return Page::kMargin + 2 * kTitleHeight + TimelineLayout::content_height(a) + TimelineLayout::content_height(b);
}

Page compare_page(const Trace& a, const Trace& b, const Comparison& c, int width, const ComparePageOptions& o) {
  Page page(width);
  const double scale = compare_scale(a, b);
  timeline(page, a, o.name_a, o.window, 1);
  timeline(page, b, o.name_b, o.window_b.value_or(o.window), scale);
  metrics(page, c);
  page.heading("First divergence");
  if (!c.divergence) {
    page.paragraph(QString("None: both traces perform the same %1 operations (thread, operation, address, value) in "
                           "the same order.")
                       .arg(c.ops[0]));
  } else {
    const Divergence& d = *c.divergence;
    page.paragraph(QString("At operation #%1 (in time order, from 1):").arg(d.index + 1));
    page.lines({"A: " + (d.described[0] ? q(*d.described[0]) : QString("(ended)")),
                "B: " + (d.described[1] ? q(*d.described[1]) : QString("(ended)"))},
               true);
  }
  totals(page, c);
  thread_times(page, c);
  return page;
}

}  // namespace lockstep::view
