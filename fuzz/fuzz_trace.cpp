// Fuzz target: the trace library's reader (trace/reader.hpp) and the viewer's file reader
// built on it (gui/model, no Qt). The bytes go through the reader directly, with small
// limits so that its refusals of over-long lines and too many events are reached (each
// event's kind, a label's region, the line as JSON); then as a file the viewer opens
// (load_document without the read: file_kind, then parse_result or the trace parser),
// and for a trace that parses, what the views derive from it on opening (bands, flows,
// statistics, the state at the first and last step, the step list's lines, a comparison
// with itself), and then painted as the views paint it, into an image on Qt's offscreen
// platform (the timeline, the statistics page; a result's page for every row and its sweep
// chart): the viewer's known hangs were all in painting, in axis loops the parsers never reach. Any
// bytes must either open or be refused with a FormatError (TraceError) or a ResultError;
// anything else (a crash, another exception, undefined behaviour, a hang) is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include <simdjson.h>

#include <cstdlib>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include "gui/model/bands.hpp"
#include "gui/model/compare.hpp"
#include "gui/model/document.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/result.hpp"
#include "gui/model/statistics.hpp"
#include "gui/model/step_state.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/result_page.hpp"
#include "gui/render/stats_page.hpp"
#include "gui/render/timeline.hpp"
#include "trace/reader.hpp"

namespace {

using namespace lockstep::view;

// Every event as the library reads it: its kind and time, a label's region, the line as JSON.
void read_events(std::string_view text) {
  lockstep::trace::Reader reader(text, "fuzz", lockstep::trace::ReaderLimits{4096, 4096});
  (void)reader.header();
  while (reader.next()) {
    const lockstep::trace::Event& e = reader.event();
    (void)e.kind_name();
    if (e.kind() == lockstep::trace::EventKind::label) {
      try {
        (void)e.region();
      } catch (const std::invalid_argument&) {  // AddressNames' refusal: not a reader's
      }
    }
    (void)e.json();
  }
  reader.require_end();
}

void app() {
  static int argc = 1;
  static char name[] = "lockstep_fuzz_trace";
  static char* argv[] = {name, nullptr};
  static QGuiApplication* instance = [] {
    ::setenv("QT_QPA_PLATFORM", "offscreen", 0);
    return new QGuiApplication(argc, argv);
  }();
  (void)instance;
}

// A page as the views paint it, cut at a height an image can hold.
void paint_page(const Page& page) {
  QImage image(page.width(), std::min(page.height(), 4000), QImage::Format_ARGB32);
  QPainter p(&image);
  page.paint(p);
}

void paint_trace(const Trace& trace) {
  app();
  QImage image(900, 500, QImage::Format_ARGB32);
  {
    QPainter p(&image);
    (void)paint_timeline(p, trace, QRect(0, 0, 900, 500), full_window(trace));
  }
  paint_page(stats_page(trace, compute_statistics(trace, whole_trace(trace)), 900));
  paint_page(stats_page(trace, compute_statistics(trace, whole_trace(trace)), 900, StatsPageOptions{true}));
}

void paint_result(const ResultFile& result) {
  app();
  for (const auto& [scenario, row] : result_rows(result)) {
    ResultPageOptions options;
    options.scenario = scenario;
    options.row = row;
    paint_page(result_page(result, options, 900));
  }
  if (const auto sweep = sweep_page(result, 900)) paint_page(*sweep);
}

void derive(const Trace& trace) {
  (void)derive_bands(trace);
  const FlowSet flows = derive_flows(trace);
  (void)visible_flows(flows, 0.0, static_cast<double>(trace.end_time) + 1.0, FlowFilter{});
  (void)compute_statistics(trace, whole_trace(trace));
  if (!trace.steps.empty()) {
    (void)describe(trace, state_at(trace, 0));
    (void)describe(trace, state_at(trace, trace.steps.size() - 1));
  }
  const std::size_t shown = std::min<std::size_t>(trace.steps.size(), 4096);
  for (std::size_t i = 0; i < shown; ++i) (void)trace.describe(trace.steps[i]);
  (void)compare_traces(trace, trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const simdjson::padded_string padded(reinterpret_cast<const char*>(data), size);
  const std::string_view text(padded.data(), padded.size());
  try {
    read_events(text);
  } catch (const TraceError&) {
  }
  try {
    if (file_kind(text) == FileKind::result) {
      paint_result(parse_result(text));
    } else {
      const Trace trace = parse_padded_trace(padded);
      derive(trace);
      paint_trace(trace);
    }
  } catch (const TraceError&) {
    // Bad input, refused with a message: fine.
  } catch (const ResultError&) {
  }
  return 0;
}
