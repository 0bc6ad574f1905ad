// The compare view: two traces' timelines on one time axis (or each on its own, scaled
// together, when their durations are far apart) and their differences (render/compare.hpp).
// The wheel over the timelines zooms both around the cursor, dragging pans both; elsewhere
// the wheel scrolls the page.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <QPoint>
#include <QString>
#include <QWidget>

#include "gui/model/compare.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/export.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

class PageCanvas;

class CompareWidget : public QWidget {
 public:
  // `close` leaves the compare view (back to the first trace's timeline).
  CompareWidget(QWidget* parent, std::function<void()> close);

  void set_traces(std::shared_ptr<const Trace> a, const QString& name_a, std::shared_ptr<const Trace> b,
                  const QString& name_b);
  void reset_zoom();
  Picture picture() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  bool over_timelines(QPoint p) const;
  // The layout the two timelines are painted with (same for both, they share the time axis).
  TimelineLayout layout(TimeWindow window) const;

  std::shared_ptr<const Trace> a_, b_;
  std::shared_ptr<const Comparison> comparison_;  // computed once per pair; zooming only repaints
  QString name_a_, name_b_;
  TimeWindow window_;
  std::optional<QPoint> drag_from_;
  TimeWindow drag_window_;
  PageCanvas* canvas_ = nullptr;
};

}  // namespace lockstep::view
