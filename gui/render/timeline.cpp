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
    case ThreadState::running: return QColor(76, 175, 80);    // green
    case ThreadState::spinning: return QColor(255, 152, 0);   // orange
    case ThreadState::parked: return QColor(66, 133, 244);    // blue
    case ThreadState::ready: return QColor(200, 200, 200);    // grey
    case ThreadState::finished: return QColor(255, 255, 255);
    case ThreadState::unknown: break;
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

QColor thread_color(int th) {
  return QColor::fromHsv((th * 67) % 360, 120, 220);
}

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
  const QPointF dir = std::abs(to.x() - from.x()) < 1 ? QPointF(0, to.y() > from.y() ? 1 : -1)
                                                       : QPointF(to.x() > from.x() ? 1 : -1, 0);
  const QPointF side(-dir.y(), dir.x());
  QPolygonF head;
  head << to << to - dir * 8 + side * 4 << to - dir * 8 - side * 4;
  p.setBrush(color);
  p.drawPolygon(head);
}

}  // namespace

TimelineLayout::TimelineLayout(const Trace& trace, QRect area, TimeWindow window)
    : area_(area),
      window_(window),
      thread_lanes_(static_cast<int>(trace.threads.size())),
      cpu_lanes_(0) {
  for (const Cpu& c : trace.cpus)
    if (!c.intervals.empty()) cpu_lanes_ = static_cast<int>(trace.cpus.size());
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
  int cpu = 0;
  for (const Cpu& c : trace.cpus)
    if (!c.intervals.empty()) cpu = static_cast<int>(trace.cpus.size());
  const int lanes = static_cast<int>(trace.threads.size()) + cpu;
  return kRulerHeight + kLaneGap + lanes * (kLaneHeight + kLaneGap) + (cpu ? 12 : 0) + 40;
}

TimeWindow full_window(const Trace& trace) {
  const double end = std::max<double>(1, static_cast<double>(trace.end_time));
  return TimeWindow{-0.02 * end, end * 1.04};
}

void paint_timeline(QPainter& p, const Trace& trace, QRect area, TimeWindow window, const PaintOptions& options) {
  const TimelineLayout L(trace, area, window);
  const TimeWindow w = L.window();
  const QRect plot = L.plot_rect();
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.fillRect(area, Qt::white);
  QFont font = p.font();
  font.setPixelSize(11);
  p.setFont(font);
  const QFontMetrics fm(font);

  // Ruler and grid.
  const double step = nice_step((w.t1 - w.t0) / std::max(1.0, plot.width() / 90.0));
  p.setPen(QColor(120, 120, 120));
  p.drawLine(L.ruler_rect().bottomLeft(), L.ruler_rect().bottomRight());
  for (double t = std::ceil(w.t0 / step) * step; t <= w.t1; t += step) {
    const double x = L.x_of(t);
    p.setPen(QColor(235, 235, 235));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(QColor(80, 80, 80));
    p.drawLine(QPointF(x, L.ruler_rect().bottom() - 6), QPointF(x, L.ruler_rect().bottom()));
    p.drawText(QPointF(x + 2, L.ruler_rect().bottom() - 8), time_text(t));
  }
  p.setPen(QColor(80, 80, 80));
  p.drawText(QRect(area.left() + 4, area.top(), TimelineLayout::kLabelWidth - 8, TimelineLayout::kRulerHeight),
             Qt::AlignVCenter | Qt::AlignLeft, "time (virtual)");

  p.setClipRect(plot.adjusted(0, 0, 1, 1));
  // Thread lanes: state intervals, then operations as ticks.
  for (const Thread& th : trace.threads) {
    const QRect lane = L.lane_rect(th.id);
    p.fillRect(lane, QColor(248, 248, 248));
    for (const StateInterval& iv : th.intervals) {
      const double x0 = std::max<double>(plot.left() - 2, L.x_of(static_cast<double>(iv.begin)));
      const double x1 = std::min<double>(plot.right() + 2, L.x_of(static_cast<double>(iv.end)));
      if (x1 < plot.left() || x0 > plot.right() || iv.end == iv.begin) continue;
      p.fillRect(QRectF(x0, lane.top() + 3, std::max(1.0, x1 - x0), lane.height() - 6), state_color(iv.state));
    }
  }
  for (const Operation& op : trace.ops) {
    const Thread* th = trace.thread(op.thread);
    if (!th) continue;
    const QRect lane = L.lane_rect(th->id);
    const double x0 = L.x_of(static_cast<double>(op.t));
    const double x1 = L.x_of(static_cast<double>(op.t + op.lat));
    if (x1 < plot.left() - 2 || x0 > plot.right() + 2) continue;
    p.fillRect(QRectF(x0, lane.top() + lane.height() / 2.0 - 1, std::max(2.0, x1 - x0), lane.height() / 2.0 - 2),
               op_color(op));
    p.fillRect(QRectF(x0, lane.top(), 1.5, lane.height()), op_color(op));
  }
  // CPU lanes (timed runs): which thread runs.
  for (int i = L.thread_lanes(); i < L.lanes(); ++i) {
    const Cpu& cpu = trace.cpus[static_cast<std::size_t>(i - L.thread_lanes())];
    const QRect lane = L.lane_rect(i);
    p.fillRect(lane, QColor(248, 248, 248));
    for (const CpuInterval& iv : cpu.intervals) {
      const double x0 = std::max<double>(plot.left() - 2, L.x_of(static_cast<double>(iv.begin)));
      const double x1 = std::min<double>(plot.right() + 2, L.x_of(static_cast<double>(iv.end)));
      if (x1 < plot.left() || x0 > plot.right()) continue;
      const QRectF r(x0, lane.top() + 3, std::max(1.0, x1 - x0), lane.height() - 6);
      p.fillRect(r, thread_color(iv.thread));
      if (r.width() > 40) {
        p.setPen(Qt::black);
        p.drawText(r, Qt::AlignCenter, QString::fromStdString(trace.thread_name(iv.thread)));
      }
    }
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
  // Wake arrows: from the unpark in the waker's lane to the start of the woken thread's running.
  if (options.wake_arrows) {
    for (const WakeEdge& e : trace.wakes) {
      if (!trace.thread(e.from) || !trace.thread(e.to)) continue;
      const QRect a = L.lane_rect(e.from);
      const QRect b = L.lane_rect(e.to);
      const QPointF from(L.x_of(static_cast<double>(e.t_unpark)), a.center().y());
      const QPointF to(L.x_of(static_cast<double>(e.t_running)), b.top() + (b.top() > a.top() ? 2 : b.height() - 2));
      arrow(p, from, to, QColor(13, 71, 161));
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
    p.drawText(L.label_rect(i), Qt::AlignVCenter | Qt::AlignLeft,
               QString("cpu %1").arg(i - L.thread_lanes()));
  const int legend_y = L.lanes() ? L.lane_rect(L.lanes() - 1).bottom() + 10 : plot.top() + 10;
  if (legend_y + 14 <= area.bottom()) {
    int x = area.left() + 4;
    for (ThreadState s : {ThreadState::running, ThreadState::spinning, ThreadState::parked, ThreadState::ready}) {
      p.fillRect(QRect(x, legend_y, 12, 12), state_color(s));
      p.drawText(QPoint(x + 16, legend_y + 11), QString::fromUtf8(to_string(s).data(), static_cast<int>(to_string(s).size())));
      x += 90;
    }
    p.setPen(QColor(13, 71, 161));
    p.drawText(QPoint(x, legend_y + 11), QString::fromUtf8("\u2192 wake"));
    p.setPen(Qt::black);
    const QString title = QString::fromStdString(trace.name.empty() ? trace.scenario : trace.name);
    p.drawText(QPoint(x + 70, legend_y + 11),
               fm.elidedText(title + QString(" | outcome: %1").arg(QString::fromStdString(trace.outcome)),
                             Qt::ElideRight, std::max(10, area.right() - x - 80)));
  }
  p.restore();
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
    for (const Operation& op : trace.ops) {
      if (op.thread != lane) continue;
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
        return fmt::format("woken by {} at t {} ns; running at t {} ns (wake latency {} ns)",
                           trace.thread_name(e.from), e.t_unpark, e.t_running, e.t_running - e.t_unpark);
    for (const StateInterval& iv : trace.threads[static_cast<std::size_t>(lane)].intervals)
      if (t >= static_cast<double>(iv.begin) && t < static_cast<double>(iv.end))
        return fmt::format("{}: {} from {} to {} ns ({} ns)", trace.threads[static_cast<std::size_t>(lane)].name,
                           to_string(iv.state), iv.begin, iv.end, iv.end - iv.begin);
    return std::nullopt;
  }
  const Cpu& cpu = trace.cpus[static_cast<std::size_t>(lane - L.thread_lanes())];
  for (const CpuInterval& iv : cpu.intervals)
    if (t >= static_cast<double>(iv.begin) && t < static_cast<double>(iv.end))
      return fmt::format("cpu {} runs {} from {} to {} ns", cpu.id, trace.thread_name(iv.thread), iv.begin, iv.end);
  return fmt::format("cpu {}: idle", cpu.id);
}

}  // namespace lockstep::view
