// The interactive timeline: paints with paint_timeline, zooms with the wheel (around the
// cursor), pans by dragging, shows an event's details as a tooltip.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include <QWidget>

#include "gui/model/trace.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

class TimelineWidget : public QWidget {
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void set_trace(std::shared_ptr<const Trace> trace);
  void set_current_step(std::optional<std::size_t> step);
  void reset_zoom();
  // Keeps time t visible, panning if needed.
  void reveal(double t);
  TimeWindow window() const { return window_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  std::shared_ptr<const Trace> trace_;
  TimeWindow window_;
  PaintOptions options_;
  std::optional<QPoint> drag_from_;
  TimeWindow drag_window_;
};

}  // namespace lockstep::view
