// Fuzz target: the trace library's reader (trace/reader.hpp) and the viewer's file reader
// built on it (gui/model, no Qt). The bytes go through the reader directly, with small
// limits so that its refusals of over-long lines and too many events are reached (each
// event's kind, a label's region, the line as JSON); then as a file the viewer opens
// (load_document without the read: file_kind, then parse_result or the trace parser),
// and for a trace that parses, what the views derive from it on opening (bands, flows,
// statistics, the state at the first and last step, the step list's lines, a comparison
// with itself). Any bytes must either open or be refused with a FormatError (TraceError) or
// a ResultError; anything else (a crash, another exception, undefined behaviour, a hang) is
// a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include <simdjson.h>

#include "gui/model/bands.hpp"
#include "gui/model/compare.hpp"
#include "gui/model/document.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/result.hpp"
#include "gui/model/statistics.hpp"
#include "gui/model/step_state.hpp"
#include "gui/model/trace.hpp"
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
      (void)parse_result(text);
    } else {
      derive(parse_padded_trace(padded));
    }
  } catch (const TraceError&) {
    // Bad input, refused with a message: fine.
  } catch (const ResultError&) {
  }
  return 0;
}
