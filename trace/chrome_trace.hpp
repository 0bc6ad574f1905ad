// Export of a lockstep trace (docs/traces.md) to the Chrome trace-event JSON that Perfetto
// and chrome://tracing open: thread state intervals, CPU occupancy, operations, wakeups
// as flow arrows, violations as global markers.
#pragma once

#include <string>
#include <string_view>

namespace lockstep::trace {

// `trace_jsonl` is the text of a trace file. Throws std::runtime_error naming the line for
// input that is not a lockstep trace of a version this build reads, or has a line that is
// not a JSON object with the fields its event needs.
std::string chrome_trace_json(std::string_view trace_jsonl);

}  // namespace lockstep::trace
