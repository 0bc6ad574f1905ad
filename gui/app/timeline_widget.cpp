#include "gui/app/timeline_widget.hpp"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

namespace lockstep::view {

namespace {
constexpr double kMinSpanNs = 2.0;  // zoomed in all the way: 2 ns across the plot
}

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 120);
  options_.flows = &flows_;
  options_.bands = &bands_;
}

void TimelineWidget::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  flows_ = trace_ ? derive_flows(*trace_) : FlowSet{};
  bands_ = trace_ ? derive_bands(*trace_) : std::vector<ThreadBands>{};
  highlighted_.reset();
  options_.highlighted = nullptr;
  options_.current_step.reset();
  options_.selection.reset();
  setMinimumHeight(trace_ ? TimelineLayout::content_height(*trace_) : 120);
  reset_zoom();
}

void TimelineWidget::set_current_step(std::optional<std::size_t> step) {
  options_.current_step = step;
  if (trace_ && step && *step < trace_->steps.size()) reveal(static_cast<double>(trace_->steps[*step].t));
  update();
}

void TimelineWidget::set_flow_filter(const FlowFilter& filter) {
  options_.flow_filter = filter;
  update();
}

void TimelineWidget::set_highlighted(std::optional<std::vector<LaneOps>> ops) {
  highlighted_ = std::move(ops);
  options_.highlighted = highlighted_ ? &*highlighted_ : nullptr;
  update();
}

void TimelineWidget::reset_zoom() { set_window(trace_ ? full_window(*trace_) : TimeWindow{}); }

void TimelineWidget::set_window(TimeWindow w) {
  window_ = w;
  update();
}

void TimelineWidget::set_selection(std::optional<TimeWindow> range) {
  options_.selection = range;
  update();
  if (on_selection) on_selection(range);
}

void TimelineWidget::reveal(double t) {
  const double span = window_.t1 - window_.t0;
  if (t < window_.t0 || t > window_.t1) {
    window_.t0 = t - span / 2;
    window_.t1 = t + span / 2;
  }
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!trace_) {
    p.fillRect(rect(), Qt::white);
    p.drawText(rect(), Qt::AlignCenter, "Open a trace (File > Open)");
    return;
  }
  last_paint_ = paint_timeline(p, *trace_, rect(), window_, options_);
  if (on_painted) on_painted(last_paint_);
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  if (!trace_) return;
  const TimelineLayout L(*trace_, rect(), window_);
  const double anchor = L.t_of(event->position().x());
  const double factor = std::pow(0.8, event->angleDelta().y() / 120.0);
  const double span = std::max(kMinSpanNs, (window_.t1 - window_.t0) * factor);
  const double frac = (anchor - window_.t0) / (window_.t1 - window_.t0);
  window_.t0 = anchor - frac * span;
  window_.t1 = window_.t0 + span;
  update();
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !trace_) return;
  drag_from_ = event->position().toPoint();
  drag_window_ = window_;
  selecting_ = (event->modifiers() & Qt::ShiftModifier) != 0;
  if (selecting_) {
    options_.selection.reset();
  } else {
    setCursor(Qt::ClosedHandCursor);
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!drag_from_ || !trace_) return;
  const TimelineLayout L(*trace_, rect(), drag_window_);
  if (selecting_) {
    const double a = L.t_of(drag_from_->x());
    const double b = L.t_of(event->position().x());
    options_.selection = TimeWindow{std::min(a, b), std::max(a, b)};
    update();
    return;
  }
  const double dt = L.t_of(drag_from_->x()) - L.t_of(event->position().x());
  window_ = TimeWindow{drag_window_.t0 + dt, drag_window_.t1 + dt};
  update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent*) {
  if (selecting_ && drag_from_) {
    // A click without a drag clears the selection.
    const bool empty = !options_.selection || options_.selection->t1 - options_.selection->t0 <= 0;
    set_selection(empty ? std::nullopt : options_.selection);
  }
  drag_from_.reset();
  selecting_ = false;
  unsetCursor();
}

bool TimelineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && trace_) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (auto text = describe_at(*trace_, rect(), window_, help->pos()))
      QToolTip::showText(help->globalPos(), QString::fromStdString(*text), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace lockstep::view
