#include "gui/render/timeline.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <QColor>
#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QPen>
#include <QPolygonF>
#include <QString>

#include "gui/render/axis.hpp"

namespace lockstep::view {

namespace {

QColor state_color(ThreadState s) {
  switch (s) {
    case ThreadState::running:
      return QColor(76, 175, 80);  // green
    case ThreadState::spinning:
      return QColor(255, 152, 0);  // orange
    case ThreadState::parked:
      return QColor(66, 133, 244);  // blue
    case ThreadState::ready:
      return QColor(200, 200, 200);  // grey
    case ThreadState::finished:
      return QColor(255, 255, 255);
    case ThreadState::unknown:
      break;
  }
  return QColor(156, 39, 176);  // purple: a state this viewer does not know
}

QColor op_color(const Operation& op) {
  if (op.op == "load" || op.op == "plain_load") return QColor(33, 33, 33);
  if (op.op == "store" || op.op == "plain_store" || op.op == "drain") return QColor(183, 28, 28);
  if (op.op == "rmw") return QColor(106, 27, 154);
  if (op.op == "unpark" || op.op == "park") return QColor(13, 71, 161);
  return QColor(97, 97, 97);
}

QColor thread_color(int th) { return QColor::fromHsv((th * 67) % 360, 120, 220); }

QString time_text(double ns) {
  if (ns >= 1e9) return QString::number(ns / 1e9, 'g', 6) + " s";
  if (ns >= 1e6) return QString::number(ns / 1e6, 'g', 6) + " ms";
  if (ns >= 1e3) return QString::number(ns / 1e3, 'g', 6) + " us";
  return QString::number(ns, 'g', 6) + " ns";
}

void arrow(QPainter& p, QPointF from, QPointF to, const QColor& color) {
  p.setPen(QPen(color, 1.6));
  QPainterPath path(from);
  const double mid = (from.x() + to.x()) / 2;
  path.cubicTo(QPointF(mid, from.y()), QPointF(mid, to.y()), to);
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  // Head pointing along the curve's end tangent (horizontal, or vertical when from.x == to.x).
  const QPointF dir =
      std::abs(to.x() - from.x()) < 1 ? QPointF(0, to.y() > from.y() ? 1 : -1) : QPointF(to.x() > from.x() ? 1 : -1, 0);
  const QPointF side(-dir.y(), dir.x());
  QPolygonF head;
  head << to << to - dir * 8 + side * 4 << to - dir * 8 - side * 4;
  p.setBrush(color);
  p.drawPolygon(head);
}

QColor flow_color(const Flow& f) {
  switch (f.kind) {
    case FlowKind::wake:
      return QColor(13, 71, 161);  // blue
    case FlowKind::lock_handoff:
      return QColor(142, 36, 170);  // purple
    case FlowKind::line_transfer:
      return f.cross_node ? QColor(230, 81, 0) : QColor(130, 130, 130);
  }
  return Qt::black;
}

// Calls paint(interval, x0, x1) for the intervals of a lane that meet the window. Where
// intervals are narrower than a pixel, each pixel column is represented by its first one,
// and neighbouring columns whose representatives look the same (`same`) become one call:
// zoomed out over a million events a lane is a few dozen rectangles, not thousands. `ivs`
// are sorted and do not overlap, so their ends are sorted too and a column's remaining
// intervals are skipped by binary search.
template <typename Interval, typename Same, typename Paint>
void for_each_visible(const TimelineLayout& L, const std::vector<Interval>& ivs, Same same, Paint paint) {
  const auto ends_after = [](double t, const Interval& iv) { return t < static_cast<double>(iv.end); };
  const TimeWindow w = L.window();
  const Interval* run = nullptr;  // pending: painted from run_x0 to run_x1
  double run_x0 = 0;
  double run_x1 = 0;
  const auto add = [&](const Interval& iv, double x0, double x1) {
    if (run != nullptr && same(*run, iv) && x0 <= run_x1 + 0.5) {
      run_x1 = std::max(run_x1, x1);
      return;
    }
    if (run != nullptr) paint(*run, run_x0, run_x1);
    run = &iv;
    run_x0 = x0;
    run_x1 = x1;
  };
  auto it = std::upper_bound(ivs.begin(), ivs.end(), w.t0, ends_after);
  while (it != ivs.end() && static_cast<double>(it->begin) <= w.t1) {
    const double x0 = L.x_of(static_cast<double>(it->begin));
    const double x1 = L.x_of(static_cast<double>(it->end));
    if (x1 - x0 >= 1 || it->end == it->begin) {
      add(*it, x0, x1);
      ++it;
      continue;
    }
    const double column = std::floor(x0);
    add(*it, column, column + 1);
    it = std::upper_bound(it + 1, ivs.end(), L.t_of(column + 1), ends_after);
  }
  if (run != nullptr) paint(*run, run_x0, run_x1);
}

// Paints a lane's operations (indices into trace.ops, in time order) as ticks. A pixel
// column holding several is drawn as "many operations" (one color for all kinds) and
// merged with its neighbours into one rectangle; zoom in to see each kind.
// Returns the rectangles painted.
std::size_t paint_ops(QPainter& p, const TimelineLayout& L, QRect lane, const Trace& trace,
                      const std::vector<std::uint32_t>& indices, const std::vector<std::uint64_t>& times,
                      const std::vector<std::uint64_t>& ends, std::uint64_t longest, bool faint) {
  const QRect plot = L.plot_rect();
  const TimeWindow w = L.window();
  // Searches go over the lane's contiguous start times, not the operations themselves
  // (a million of those do not fit in any cache).
  const auto first_at = [&](std::size_t from, double t) {
    return static_cast<std::size_t>(
        std::lower_bound(times.begin() + static_cast<std::ptrdiff_t>(from), times.end(), t,
                         [](std::uint64_t a, double x) { return static_cast<double>(a) < x; }) -
        times.begin());
  };
  std::size_t i = first_at(0, w.t0 - static_cast<double>(longest));
  std::size_t drawn = 0;
  QColor dense(55, 71, 79);
  if (faint) dense.setAlpha(50);
  std::optional<std::pair<double, double>> run;  // a stretch of dense columns
  const auto flush = [&] {
    if (!run) return;
    // The lower half, like single ticks: the thread's state stays visible above.
    const double top = lane.top() + lane.height() / 2.0 - 1;
    p.fillRect(QRectF(run->first, top, run->second - run->first, lane.bottom() - 1 - top), dense);
    ++drawn;
    run.reset();
  };
  while (i < indices.size()) {
    const double x0 = L.x_of(static_cast<double>(times[i]));
    if (x0 > plot.right() + 2) break;
    const double column = std::floor(x0);
    const double next_t = L.t_of(column + 1);
    std::size_t next = i + 1;
    if (next < times.size() && static_cast<double>(times[next]) < next_t) next = first_at(next, next_t);
    const double x1 = L.x_of(static_cast<double>(ends[i]));
    if (x1 >= plot.left() - 2) {
      if (next - i > 1) {
        const double end = std::max(column + 1, x1);
        if (run && column <= run->second + 0.5) {
          run->second = std::max(run->second, end);
        } else {
          flush();
          run = std::pair{column, end};
        }
      } else {
        flush();
        QColor c = op_color(trace.ops[indices[i]]);
        if (faint) c.setAlpha(50);
        const double top = lane.top() + lane.height() / 2.0 - 1;
        p.fillRect(QRectF(x0, top, std::max(2.0, x1 - x0), lane.bottom() - 1 - top), c);
        p.fillRect(QRectF(x0, lane.top(), 1.5, lane.height()), c);
        ++drawn;
      }
    }
    i = next;
  }
  flush();
  return drawn;
}

QColor band_color(const Band& b) {
  switch (b.kind) {
    case Band::Kind::lock_held:
      return b.shared ? QColor(206, 147, 216) : QColor(142, 36, 170);
    case Band::Kind::lock_wait:
      return QColor(244, 143, 177);
    case Band::Kind::futex_queued:
      return QColor(0, 137, 123);
    case Band::Kind::syscall:
      return QColor(144, 164, 174);
  }
  return Qt::black;
}

// Bands in the lane's top margin (locks) and bottom margin (futex queue), merged per
// pixel like the operations: bands are sorted by begin, and none is longer than `longest`.
void paint_bands(QPainter& p, const TimelineLayout& L, QRect lane, const ThreadBands& tb) {
  const TimeWindow w = L.window();
  const QRect plot = L.plot_rect();
  auto it = std::lower_bound(tb.bands.begin(), tb.bands.end(), w.t0 - static_cast<double>(tb.longest_ns),
                             [](const Band& b, double t) { return static_cast<double>(b.begin) < t; });
  for (; it != tb.bands.end() && static_cast<double>(it->begin) <= w.t1; ++it) {
    const double x0 = std::max<double>(plot.left() - 2, L.x_of(static_cast<double>(it->begin)));
    const double x1 = std::min<double>(plot.right() + 2, L.x_of(static_cast<double>(it->end)));
    if (x1 < plot.left()) continue;
    // Locks above; system calls below, and futex queueing (inside a system call) over them.
    const bool top = it->kind == Band::Kind::lock_held || it->kind == Band::Kind::lock_wait;
    const double y = top ? lane.top() : lane.bottom() - 2;
    p.fillRect(QRectF(x0, y, std::max(1.0, x1 - x0), 3), band_color(*it));
    if (it->open && x1 <= plot.right()) p.fillRect(QRectF(x1 - 2, y - 2, 2, 7), band_color(*it));  // still at the end
  }
}

// The interval of a sorted, non-overlapping list that covers t, or null.
template <typename Interval>
const Interval* covering(const std::vector<Interval>& ivs, double t) {
  const auto it = std::upper_bound(ivs.begin(), ivs.end(), t,
                                   [](double x, const Interval& iv) { return x < static_cast<double>(iv.end); });
  return it != ivs.end() && static_cast<double>(it->begin) <= t ? &*it : nullptr;
}

// CPUs with occupancy intervals (timed runs), in order; idle CPUs get no lane.
std::vector<int> used_cpus(const Trace& trace) {
  std::vector<int> out;
  for (const Cpu& c : trace.cpus)
    if (!c.intervals.empty()) out.push_back(c.id);
  return out;
}

}  // namespace

TimelineLayout::TimelineLayout(const Trace& trace, QRect area, TimeWindow window)
    : area_(area),
      window_(window),
      thread_lanes_(static_cast<int>(trace.threads.size())),
      cpu_of_lane_(used_cpus(trace)) {
  if (!(window_.t1 > window_.t0)) window_.t1 = window_.t0 + 1;
}

QRect TimelineLayout::plot_rect() const {
  return QRect(area_.left() + kLabelWidth, area_.top() + kRulerHeight, std::max(1, area_.width() - kLabelWidth - 8),
               std::max(1, area_.height() - kRulerHeight));
}

QRect TimelineLayout::ruler_rect() const {
  return QRect(area_.left() + kLabelWidth, area_.top(), plot_rect().width(), kRulerHeight);
}

double TimelineLayout::x_of(double t) const {
  const QRect r = plot_rect();
  return r.left() + (t - window_.t0) / (window_.t1 - window_.t0) * r.width();
}

double TimelineLayout::t_of(double x) const {
  const QRect r = plot_rect();
  return window_.t0 + (x - r.left()) / r.width() * (window_.t1 - window_.t0);
}

QRect TimelineLayout::lane_rect(int lane) const {
  // CPU lanes follow the thread lanes after one extra gap.
  const int extra = lane >= thread_lanes_ ? 12 : 0;
  const QRect r = plot_rect();
  return QRect(r.left(), r.top() + kLaneGap + lane * (kLaneHeight + kLaneGap) + extra, r.width(), kLaneHeight);
}

QRect TimelineLayout::label_rect(int lane) const {
  const QRect r = lane_rect(lane);
  return QRect(area_.left() + 4, r.top(), kLabelWidth - 8, r.height());
}

int TimelineLayout::lane_at(QPoint p) const {
  for (int i = 0; i < lanes(); ++i) {
    const QRect r = lane_rect(i);
    if (p.y() >= r.top() && p.y() <= r.bottom()) return i;
  }
  return -1;
}

int TimelineLayout::content_height(const Trace& trace) {
  const int cpu = static_cast<int>(used_cpus(trace).size());
  const int lanes = static_cast<int>(trace.threads.size()) + cpu;
  return kRulerHeight + kLaneGap + lanes * (kLaneHeight + kLaneGap) + (cpu ? 12 : 0) + 40;
}

TimeWindow full_window(const Trace& trace) {
  const double end = std::max<double>(1, static_cast<double>(trace.end_time));
  return TimeWindow{-0.02 * end, end * 1.04};
}

PaintSummary paint_timeline(QPainter& p, const Trace& trace, QRect area, TimeWindow window,
                            const PaintOptions& options) {
  const TimelineLayout L(trace, area, window);
  const TimeWindow w = L.window();
  const QRect plot = L.plot_rect();
  PaintSummary summary;
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.fillRect(area, Qt::white);
  QFont font = p.font();
  font.setPixelSize(11);
  p.setFont(font);
  const QFontMetrics fm(font);

  // Ruler and grid.
  p.setPen(QColor(120, 120, 120));
  p.drawLine(L.ruler_rect().bottomLeft(), L.ruler_rect().bottomRight());
  for (const double t : axis_ticks(w.t0, w.t1, (w.t1 - w.t0) / std::max(1.0, plot.width() / 90.0))) {
    const double x = L.x_of(t);
    p.setPen(QColor(235, 235, 235));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(QColor(80, 80, 80));
    p.drawLine(QPointF(x, L.ruler_rect().bottom() - 6), QPointF(x, L.ruler_rect().bottom()));
    p.drawText(QPointF(x + 2, L.ruler_rect().bottom() - 8), time_text(t));
  }
  p.setPen(QColor(80, 80, 80));
  p.drawText(QRect(area.left() + 4, area.top(), TimelineLayout::kLabelWidth - 8, TimelineLayout::kRulerHeight),
             Qt::AlignVCenter | Qt::AlignLeft, trace.native ? "time (real)" : "time (virtual)");

  p.setClipRect(plot.adjusted(0, 0, 1, 1));
  // Thread lanes: state intervals, then operations as ticks (faint under a search's hits),
  // then lock and futex bands in the lane's margins.
  // Rectangles are axis-aligned: no antialiasing, which also keeps big traces fast.
  p.setRenderHint(QPainter::Antialiasing, false);
  std::vector<ThreadBands> derived_bands;
  const std::vector<ThreadBands>* bands = options.bands;
  if (bands == nullptr) {
    derived_bands = derive_bands(trace);
    bands = &derived_bands;
  }
  for (const Thread& th : trace.threads) {
    const QRect lane = L.lane_rect(th.id);
    p.fillRect(lane, QColor(248, 248, 248));
    const auto same_state = [](const StateInterval& a, const StateInterval& b) { return a.state == b.state; };
    for_each_visible(L, th.intervals, same_state, [&](const StateInterval& iv, double x0, double x1) {
      x0 = std::max<double>(plot.left() - 2, x0);
      x1 = std::min<double>(plot.right() + 2, x1);
      p.fillRect(QRectF(x0, lane.top() + 3, std::max(1.0, x1 - x0), lane.height() - 6), state_color(iv.state));
    });
    const auto id = static_cast<std::size_t>(th.id);
    if (id < trace.ops_by_thread.size())
      summary.ops_drawn +=
          paint_ops(p, L, lane, trace, trace.ops_by_thread[id], trace.op_times_by_thread[id],
                    trace.op_ends_by_thread[id], trace.longest_op_by_thread[id], options.highlighted != nullptr);
    if (options.highlighted != nullptr && id < options.highlighted->size())
      summary.ops_drawn +=
          paint_ops(p, L, lane, trace, (*options.highlighted)[id].indices, (*options.highlighted)[id].times,
                    (*options.highlighted)[id].ends, trace.longest_op_by_thread[id], false);
    if (id < bands->size()) paint_bands(p, L, lane, (*bands)[id]);
  }
  // CPU lanes (timed runs): which thread runs.
  for (int i = L.thread_lanes(); i < L.lanes(); ++i) {
    const Cpu& cpu = trace.cpus[static_cast<std::size_t>(L.cpu_of_lane(i))];
    const QRect lane = L.lane_rect(i);
    p.fillRect(lane, QColor(248, 248, 248));
    const auto same_thread = [](const CpuInterval& a, const CpuInterval& b) { return a.thread == b.thread; };
    for_each_visible(L, cpu.intervals, same_thread, [&](const CpuInterval& iv, double x0, double x1) {
      x0 = std::max<double>(plot.left() - 2, x0);
      x1 = std::min<double>(plot.right() + 2, x1);
      const QRectF r(x0, lane.top() + 3, std::max(1.0, x1 - x0), lane.height() - 6);
      p.fillRect(r, thread_color(iv.thread));
      if (r.width() > 40) {
        p.setPen(Qt::black);
        p.drawText(r, Qt::AlignCenter, QString::fromStdString(trace.thread_name(iv.thread)));
      }
    });
  }
  p.setRenderHint(QPainter::Antialiasing, true);
  if (options.selection) {
    const double x0 = L.x_of(std::min(options.selection->t0, options.selection->t1));
    const double x1 = L.x_of(std::max(options.selection->t0, options.selection->t1));
    p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), QColor(33, 150, 243, 40));
    p.setPen(QPen(QColor(33, 150, 243), 1));
    p.drawLine(QPointF(x0, plot.top()), QPointF(x0, plot.bottom()));
    p.drawLine(QPointF(x1, plot.top()), QPointF(x1, plot.bottom()));
  }
  // Current step highlight.
  if (options.current_step && *options.current_step < trace.steps.size()) {
    const Step& s = trace.steps[*options.current_step];
    const double x = L.x_of(static_cast<double>(s.t));
    p.setPen(QPen(QColor(0, 0, 0, 140), 1, Qt::DashLine));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    if (s.kind == Step::Kind::op) {
      const Operation& op = trace.ops[s.op];
      const QRect lane = L.lane_rect(op.thread);
      const double x1 = std::max(x + 4, L.x_of(static_cast<double>(op.t + op.lat)));
      p.setPen(QPen(QColor(255, 214, 0), 3));
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRectF(x - 3, lane.top() + 1, x1 - x + 6, lane.height() - 2));
    }
  }
  // Flows: wakes (from the unpark to the woken thread's running), lock hand-offs (from
  // the release to the next holder's acquire), cache-line transfers (from the line's last
  // writer to the access that pulled it from that cache), capped and filtered.
  {
    FlowSet derived;
    const FlowSet* flows = options.flows;
    if (flows == nullptr) {
      derived = derive_flows(trace);
      flows = &derived;
    }
    const VisibleFlows visible = visible_flows(*flows, w.t0, w.t1, options.flow_filter);
    summary.flows_shown = visible.shown.size();
    summary.flows_matching = visible.matching;
    for (const Flow* f : visible.shown) {
      if (!trace.thread(f->from) || !trace.thread(f->to)) continue;
      const QRect a = L.lane_rect(f->from);
      const QRect b = L.lane_rect(f->to);
      const QPointF from(L.x_of(static_cast<double>(f->t_from)), a.center().y());
      const QPointF to(L.x_of(static_cast<double>(f->t_to)), b.top() + (b.top() > a.top() ? 2 : b.height() - 2));
      arrow(p, from, to, flow_color(*f));
    }
  }
  // The violation: a red line across the lanes, a flag, and a mark on the thread that found it.
  if (trace.violation || trace.witness) {
    const Finding& f = trace.violation ? *trace.violation : *trace.witness;
    const QColor c = trace.violation ? QColor(211, 47, 47) : QColor(46, 125, 50);
    const double x = std::min<double>(plot.right() - 1, L.x_of(static_cast<double>(f.t)));
    p.setPen(QPen(c, 2));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    const QString text = QString::fromStdString((trace.violation ? "VIOLATION " : "WITNESS ") + f.property);
    const int tw = fm.horizontalAdvance(text) + 10;
    const QRectF flag(std::max<double>(plot.left(), x - tw), plot.bottom() - 22, tw, 18);
    p.fillRect(flag, c);
    p.setPen(Qt::white);
    p.drawText(flag, Qt::AlignCenter, text);
    if (const Thread* th = trace.thread(f.thread)) {
      const QRect lane = L.lane_rect(th->id);
      p.setBrush(c);
      p.setPen(Qt::NoPen);
      p.drawEllipse(QPointF(x, lane.center().y()), 6, 6);
    }
  }
  p.setClipping(false);

  // Lane labels and the legend.
  p.setPen(Qt::black);
  for (const Thread& th : trace.threads) {
    const QString name = QString::fromStdString(th.name + (th.cpu >= 0 ? fmt::format(" (cpu {})", th.cpu) : ""));
    p.drawText(L.label_rect(th.id), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(name, Qt::ElideRight, 120));
  }
  for (int i = L.thread_lanes(); i < L.lanes(); ++i)
    p.drawText(L.label_rect(i), Qt::AlignVCenter | Qt::AlignLeft, QString("cpu %1").arg(L.cpu_of_lane(i)));
  const int legend_y = L.lanes() ? L.lane_rect(L.lanes() - 1).bottom() + 10 : plot.top() + 10;
  if (legend_y + 14 <= area.bottom()) {
    int x = area.left() + 4;
    for (ThreadState s : {ThreadState::running, ThreadState::spinning, ThreadState::parked, ThreadState::ready}) {
      p.fillRect(QRect(x, legend_y, 12, 12), state_color(s));
      p.drawText(QPoint(x + 16, legend_y + 11),
                 QString::fromUtf8(to_string(s).data(), static_cast<int>(to_string(s).size())));
      x += 90;
    }
    const std::pair<const char*, QColor> arrows[] = {{"\u2192 wake", QColor(13, 71, 161)},
                                                     {"\u2192 lock hand-off", QColor(142, 36, 170)},
                                                     {"\u2192 line between sockets", QColor(230, 81, 0)},
                                                     {"\u2192 line within a socket", QColor(130, 130, 130)},
                                                     {"\u25ac lock held", QColor(142, 36, 170)},
                                                     {"\u25ac lock wait", QColor(244, 143, 177)},
                                                     {"\u25ac futex queued", QColor(0, 137, 123)},
                                                     {"\u25ac in a system call", QColor(144, 164, 174)}};
    for (const auto& [text, color] : arrows) {
      p.setPen(color);
      const QString label = QString::fromUtf8(text);
      p.drawText(QPoint(x, legend_y + 11), label);
      x += fm.horizontalAdvance(label) + 14;
    }
    p.setPen(Qt::black);
    QString title = QString::fromStdString(trace.name.empty() ? trace.scenario : trace.name);
    title += QString(" | outcome: %1").arg(QString::fromStdString(trace.outcome));
    if (summary.flows_matching > summary.flows_shown)
      title += QString(" | arrows: %1 of %2 shown").arg(summary.flows_shown).arg(summary.flows_matching);
    p.drawText(QPoint(x, legend_y + 11), fm.elidedText(title, Qt::ElideRight, std::max(10, area.right() - x - 8)));
  }
  p.restore();
  return summary;
}

std::optional<std::string> describe_at(const Trace& trace, QRect area, TimeWindow window, QPoint pos) {
  const TimelineLayout L(trace, area, window);
  if (!L.plot_rect().contains(pos)) return std::nullopt;
  const int lane = L.lane_at(pos);
  const double t = L.t_of(pos.x());
  const double slack = 3 * (L.window().t1 - L.window().t0) / L.plot_rect().width();  // 3 px
  if (trace.violation) {
    const double x = L.x_of(static_cast<double>(trace.violation->t));
    if (std::abs(x - pos.x()) <= 3)
      return fmt::format("VIOLATION {}\n{}", trace.violation->property, trace.violation->msg);
  }
  if (lane < 0) return std::nullopt;
  if (lane < L.thread_lanes()) {
    // The nearest operation whose [t, t+lat) covers the point, within 3 px.
    const Operation* best = nullptr;
    double best_d = slack;
    const auto& indices = trace.ops_by_thread[static_cast<std::size_t>(lane)];
    const double from = t - slack - static_cast<double>(trace.longest_op_by_thread[static_cast<std::size_t>(lane)]);
    auto it = std::lower_bound(indices.begin(), indices.end(), from,
                               [&](std::uint32_t i, double x) { return static_cast<double>(trace.ops[i].t) < x; });
    for (; it != indices.end() && static_cast<double>(trace.ops[*it].t) <= t + slack; ++it) {
      const Operation& op = trace.ops[*it];
      const double b = static_cast<double>(op.t);
      const double e = static_cast<double>(op.t + op.lat);
      const double d = t < b ? b - t : (t > e ? t - e : 0);
      if (d <= best_d) {
        best = &op;
        best_d = d;
      }
    }
    if (best) return trace.describe(*best) + fmt::format("\n(line {} of the trace)", best->line);
    for (const WakeEdge& e : trace.wakes)
      if (e.to == lane && std::abs(t - static_cast<double>(e.t_running)) <= slack)
        return fmt::format("woken by {} at t {} ns; running at t {} ns (wake latency {} ns)", trace.thread_name(e.from),
                           e.t_unpark, e.t_running, e.t_running - e.t_unpark);
    if (const StateInterval* iv = covering(trace.threads[static_cast<std::size_t>(lane)].intervals, t))
      return fmt::format("{}: {} from {} to {} ns ({} ns)", trace.threads[static_cast<std::size_t>(lane)].name,
                         to_string(iv->state), iv->begin, iv->end, iv->end - iv->begin);
    return std::nullopt;
  }
  const Cpu& cpu = trace.cpus[static_cast<std::size_t>(L.cpu_of_lane(lane))];
  if (const CpuInterval* iv = covering(cpu.intervals, t))
    return fmt::format("cpu {} runs {} from {} to {} ns", cpu.id, trace.thread_name(iv->thread), iv->begin, iv->end);
  return fmt::format("cpu {}: idle", cpu.id);
}

}  // namespace lockstep::view
