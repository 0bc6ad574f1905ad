// A counterexample as a person reads it: one line per step with the thread, the operation,
// the location by name and the values, store-buffer drains shown as their own events, and
// where the violation happened. Made from the trace's JSON lines (docs/traces.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lockstep::cli {

std::vector<std::string> readable_interleaving(std::string_view trace_text);

}  // namespace lockstep::cli
