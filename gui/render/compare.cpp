#include "gui/render/compare.hpp"

#include <algorithm>

#include <QFontMetrics>
#include <QPainter>

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

void timeline(Page& page, const Trace& trace, const QString& title, TimeWindow window) {
  const QString line = QString("%1: %2  |  outcome %3  |  end %4 ns, %5 steps")
                           .arg(title, q(trace.name.empty() ? trace.scenario : trace.name), q(trace.outcome))
                           .arg(trace.end_time)
                           .arg(trace.end_steps);
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

TimeWindow compare_window(const Trace& a, const Trace& b) {
  const double end = std::max<double>(1, static_cast<double>(std::max(a.end_time, b.end_time)));
  return TimeWindow{-0.02 * end, end * 1.04};
}

int compare_timelines_height(const Trace& a, const Trace& b) {
  return Page::kMargin + 2 * kTitleHeight + TimelineLayout::content_height(a) + TimelineLayout::content_height(b);
}

Page compare_page(const Trace& a, const Trace& b, const Comparison& c, int width, const ComparePageOptions& o) {
  Page page(width);
  timeline(page, a, o.name_a, o.window);
  timeline(page, b, o.name_b, o.window);
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
