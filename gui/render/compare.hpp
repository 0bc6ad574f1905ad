// The compare view's page: two traces' timelines one above the other on the same time axis
// (same window, same width, so the same nanoseconds per pixel), then their figures side by
// side with B's difference from A in percent, then the differences that compare_traces
// found. When one trace lasts far longer than the other (a native run of 200 ms beside a
// simulated 20 us) each timeline spans its own duration instead. QtGui only.
#pragma once

#include <optional>

#include <QString>

#include "gui/model/compare.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/page.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

// Both traces, from 0 to the later end (on their own scales: A's end), with the timeline's margins.
TimeWindow compare_window(const Trace& a, const Trace& b);

struct ComparePageOptions {
  TimeWindow window;
  QString name_a = "A", name_b = "B";  // shown above each timeline (file names)
  std::optional<TimeWindow> window_b;  // B's timeline on its own time scale; none: `window`
};

// When one trace lasts more than this many times the other, a shared axis would show the
// shorter as a sliver [guess: past 4x the shorter one's events are hard to tell apart].
inline constexpr double kOwnScaleRatio = 4;

// 1 when the two traces share the time axis, otherwise B's duration over A's: B's window is
// A's times this, so zooming and panning A's moves B's over the same fraction of its run.
double compare_scale(const Trace& a, const Trace& b);
// The page options for `window` (A's): B's window follows compare_scale.
ComparePageOptions compare_options(const Trace& a, const Trace& b, TimeWindow window, const QString& name_a,
                                   const QString& name_b);

// The height of the part with the two timelines, from the page's top: wheel zoom applies there.
int compare_timelines_height(const Trace& a, const Trace& b);

Page compare_page(const Trace& a, const Trace& b, const Comparison& comparison, int width,
                  const ComparePageOptions& options);

}  // namespace lockstep::view
