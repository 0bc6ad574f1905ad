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
}

void TimelineWidget::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  options_.current_step.reset();
  setMinimumHeight(trace_ ? TimelineLayout::content_height(*trace_) : 120);
  reset_zoom();
}

void TimelineWidget::set_current_step(std::optional<std::size_t> step) {
  options_.current_step = step;
  if (trace_ && step && *step < trace_->steps.size()) reveal(static_cast<double>(trace_->steps[*step].t));
  update();
}

void TimelineWidget::reset_zoom() {
  window_ = trace_ ? full_window(*trace_) : TimeWindow{};
  update();
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
  paint_timeline(p, *trace_, rect(), window_, options_);
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
  if (event->button() == Qt::LeftButton) {
    drag_from_ = event->position().toPoint();
    drag_window_ = window_;
    setCursor(Qt::ClosedHandCursor);
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!drag_from_ || !trace_) return;
  const TimelineLayout L(*trace_, rect(), drag_window_);
  const double dt = L.t_of(drag_from_->x()) - L.t_of(event->position().x());
  window_ = TimeWindow{drag_window_.t0 + dt, drag_window_.t1 + dt};
  update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent*) {
  drag_from_.reset();
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
