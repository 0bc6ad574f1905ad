// The interactive timeline: paints with paint_timeline, zooms with the wheel (around the
// cursor), pans by dragging, selects a time range by dragging with Shift held, shows an
// event's details as a tooltip. It derives the trace's flows once and keeps the search's
// hits, so a frame only searches the visible window.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "gui/model/bands.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

class TimelineWidget : public QWidget {
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void set_trace(std::shared_ptr<const Trace> trace);
  void set_current_step(std::optional<std::size_t> step);
  void set_flow_filter(const FlowFilter& filter);
  const FlowFilter& flow_filter() const { return options_.flow_filter; }
  // Operations to show on top (per thread, indices into Trace::ops); nullopt: no search.
  void set_highlighted(std::optional<std::vector<LaneOps>> ops);
  void reset_zoom();
  void set_window(TimeWindow w);
  // Keeps time t visible, panning if needed.
  void reveal(double t);
  TimeWindow window() const { return window_; }
  std::optional<TimeWindow> selection() const { return options_.selection; }
  void set_selection(std::optional<TimeWindow> range);
  const PaintSummary& last_paint() const { return last_paint_; }

  // Called when the selected range changes (nullopt: cleared) and after every repaint.
  std::function<void(std::optional<TimeWindow>)> on_selection;
  std::function<void(const PaintSummary&)> on_painted;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  std::shared_ptr<const Trace> trace_;
  FlowSet flows_;
  std::vector<ThreadBands> bands_;
  std::optional<std::vector<LaneOps>> highlighted_;
  TimeWindow window_;
  PaintOptions options_;
  PaintSummary last_paint_;
  std::optional<QPoint> drag_from_;
  bool selecting_ = false;
  TimeWindow drag_window_;
};

}  // namespace lockstep::view
