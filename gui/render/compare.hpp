// The compare view's page: two traces' timelines one above the other on the same time axis
// (same window, same width, so the same nanoseconds per pixel), then the differences that
// compare_traces found. QtGui only.
#pragma once

#include <QString>

#include "gui/model/compare.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/page.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

// Both traces, from 0 to the later end, with the timeline's margins.
TimeWindow compare_window(const Trace& a, const Trace& b);

struct ComparePageOptions {
  TimeWindow window;
  QString name_a = "A", name_b = "B";  // shown above each timeline (file names)
};

// The height of the part with the two timelines, from the page's top: wheel zoom applies there.
int compare_timelines_height(const Trace& a, const Trace& b);

Page compare_page(const Trace& a, const Trace& b, const Comparison& comparison, int width,
                  const ComparePageOptions& options);

}  // namespace lockstep::view
