// A native run's trace (docs/traces.md, "Native traces"): what its notes recorded
// (native/native_trace.hpp), the threads' buffers merged by time, in the trace format's words
// (trace/writer.hpp), written through a TraceOutput (its SHA-256, the file written
// atomically, the Chrome export).
#pragma once

#include <string>

#include "driver/trace_output.hpp"
#include "native/native_trace.hpp"
#include "report/row_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

// The header's members after `format` and `version`, without braces.
std::string native_trace_header(const native::TraceSession& session, const scenario::Scenario& s);

// What the writing saw: events written, and those the buffers dropped or that could not be
// attributed (a futex waiter's node on no runner thread's stack).
struct NativeTraceCounts {
  std::uint64_t events = 0;
  std::uint64_t dropped = 0;
  std::uint64_t unattributed = 0;
};

// Writes the recording of the run that made `row`: labels, threads, the events in time order (a thread's
// own in the order it made them), the violation if the row found one, and `end`.
NativeTraceCounts write_native_trace(const native::TraceSession& session, const report::RowReport& row,
                                     trace::Writer& writer);

}  // namespace lockstep::driver
