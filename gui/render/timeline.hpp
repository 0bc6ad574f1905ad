// Paints a trace's timeline with QPainter: a time ruler, one lane per thread (its state
// intervals, its operations as ticks), one lane per CPU when the trace has CPU occupancy,
// wake arrows and the violation marker. Used by the window's widget and by --screenshot,
// so both show the same picture. Needs QtGui only (no widgets).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <QPoint>
#include <QRect>

#include "gui/model/bands.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/trace.hpp"

class QPainter;

namespace lockstep::view {

// The visible window of virtual time, in nanoseconds (doubles so zoom can go below 1 ns per pixel).
struct TimeWindow {
  double t0 = 0;
  double t1 = 1;
};

// Where things are drawn inside an area, for painting and hit-testing alike.
class TimelineLayout {
 public:
  static constexpr int kLabelWidth = 130;
  static constexpr int kRulerHeight = 28;
  static constexpr int kLaneHeight = 30;
  static constexpr int kLaneGap = 4;

  TimelineLayout(const Trace& trace, QRect area, TimeWindow window);

  double x_of(double t) const;
  double t_of(double x) const;
  int lanes() const { return thread_lanes_ + static_cast<int>(cpu_of_lane_.size()); }
  int thread_lanes() const { return thread_lanes_; }
  // The CPU shown in a lane at or after thread_lanes(): only CPUs that ran something get one.
  int cpu_of_lane(int lane) const { return cpu_of_lane_[static_cast<std::size_t>(lane - thread_lanes_)]; }
  QRect lane_rect(int lane) const;  // the plotting part of a lane (right of the labels)
  QRect label_rect(int lane) const;
  QRect plot_rect() const;
  QRect ruler_rect() const;
  // The lane under a point, or -1.
  int lane_at(QPoint p) const;
  // Height that shows every lane.
  static int content_height(const Trace& trace);
  TimeWindow window() const { return window_; }

 private:
  QRect area_;
  TimeWindow window_;
  int thread_lanes_;
  std::vector<int> cpu_of_lane_;
};

// The whole trace with a little margin.
TimeWindow full_window(const Trace& trace);

// Some of a lane's operations: indices into Trace::ops and their start times, in time order.
struct LaneOps {
  std::vector<std::uint32_t> indices;
  std::vector<std::uint64_t> times;
  std::vector<std::uint64_t> ends;  // t + lat
};

struct PaintOptions {
  std::optional<std::size_t> current_step;  // index into Trace::steps, highlighted
  // Arrows: those of `flows` that pass `flow_filter` (null: the trace's flows are derived
  // for this one picture, fine for a screenshot, too slow for every frame of a big trace).
  const FlowSet* flows = nullptr;
  FlowFilter flow_filter;
  // Search hits: per thread, indices into Trace::ops (in time order). When set, the other
  // operations are drawn faint and these on top.
  const std::vector<LaneOps>* highlighted = nullptr;
  std::optional<TimeWindow> selection;  // a time range selected for statistics
  // Lock holds and waits, futex queueing, per thread (null: derived for this picture).
  const std::vector<ThreadBands>* bands = nullptr;
};

// What a paint drew, for the status line.
struct PaintSummary {
  std::size_t flows_shown = 0;
  std::size_t flows_matching = 0;
  std::size_t ops_drawn = 0;  // ticks actually painted (level of detail merges the rest)
};

// Level of detail: a lane never paints more than a few marks per pixel column. Operations
// and state intervals are found by binary search from the window's start, and where
// several fall into one column the first is drawn (taller when it stands for many) and the
// rest skipped by another search, so painting costs O(lanes x width x log n) however many
// events the trace holds.
PaintSummary paint_timeline(QPainter& painter, const Trace& trace, QRect area, TimeWindow window,
                            const PaintOptions& options = {});

// Details of what lies under a point (an operation, a state interval, a wake, the violation), or nothing.
std::optional<std::string> describe_at(const Trace& trace, QRect area, TimeWindow window, QPoint p);

}  // namespace lockstep::view
