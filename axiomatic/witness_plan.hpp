// From a satisfying model to an interleaving (docs/model-checking.md, "Witnesses that
// replay"). The model gives, for the events that happen, what each load reads, the
// coherence order and a clock that orders them consistently with the memory model. The plan
// is a run of the x86-TSO abstract machine (Owens, Sarkar, Sewell 2009) that realises it:
// take the events in clock order; a store reaches memory (a drain) at its place in that
// order, having entered its thread's buffer when the thread got there; a load, a locked
// instruction or mfence is a step of its thread at its place, after the thread has put its
// earlier stores into its buffer. Under SC every event is one step at its place.
//
// The plan is in the engine's terms (a thread's step, or a drain of its oldest buffered
// store), but this file knows nothing of the engine: the driver hands the plan to the
// engine as a scheduler, which is where a plan that cannot be followed shows up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "axiomatic/event_graph.hpp"
#include "axiomatic/memory_model.hpp"

namespace lockstep::axiomatic {

struct PlanStep {
  enum class Kind : std::uint8_t { step, drain };
  Kind kind = Kind::step;
  int thread = -1;
  EventKind event = EventKind::fence;  // step: the event the step performs; drain: store
  int var = -1;
  std::string where;
};

// Throws std::logic_error when the model's order cannot be run on the abstract machine (a
// bug of the encoding: the axioms allowed what the machine cannot do).
std::vector<PlanStep> witness_plan(const EventGraph& g, const Encoding& enc, const z3::model& m, Model model);

std::string describe(const PlanStep& s);

}  // namespace lockstep::axiomatic
