// A counterexample as a person reads it, made from the trace's JSON lines (docs/traces.md).
//
// Two views of the same execution:
//  - `raw`: one line per step of the schedule: the thread, the operation, the location in
//    the design's words (trace/address_names.hpp: bucket[14].waiters) and the values;
//    store-buffer drains are steps of their own.
//  - `steps`: the same steps grouped by the protocol steps the designs marked
//    (P::note_step: "futex_wait: lock the bucket"), each line folding the raw steps it
//    performed. A run of raw steps of one protocol step is one line; a protocol step another
//    thread interrupted is continued on a later line. Consecutive drains of one thread's
//    store buffer fold into one line. A protocol step with no access of its own is shown
//    when it is the last of its operation (the outcome: "nobody waits: return without the
//    lock"). Steps outside any protocol step (a scenario's own loads and stores) stand alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::trace {

struct ProtocolStepLine {
  std::string thread;         // "-" for an event of no thread (the final check)
  std::string step;           // "futex_wait: lock the bucket", or the raw step's text
  std::string detail;         // what it did, in brief: the access when there is one
  std::size_t first_raw = 0;  // the raw lines folded, 1-based into Interleaving::raw (0: none)
  std::size_t last_raw = 0;
  std::size_t first_step = 0;  // their step numbers in the schedule (0: none, a note)
  std::size_t last_step = 0;
  bool note = false;  // a note (a thread sleeps, the violation): not a step, not numbered
};

struct Interleaving {
  std::vector<std::string> raw;  // "  12  waiter     load bucket[14].waiters -> 0" and notes
  std::vector<ProtocolStepLine> steps;
  std::size_t raw_steps = 0;        // numbered raw lines (schedule steps)
  bool has_protocol_steps = false;  // some design marked a step (else `steps` only mirrors `raw`)
};

// Throws std::runtime_error naming the line on a trace it cannot read.
Interleaving read_interleaving(std::string_view trace_text);

// The protocol-step view as printed lines; with `verbose`, each line's raw steps follow it.
std::vector<std::string> format_protocol_steps(const Interleaving& interleaving, bool verbose);

}  // namespace lockstep::trace
