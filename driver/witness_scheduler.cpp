#include "driver/witness_scheduler.hpp"

#include <fmt/format.h>

namespace lockstep::driver {

namespace {

bool performs(const sim::PendingOp& op, axiomatic::EventKind event) {
  using sim::OpKind;
  switch (event) {
    case axiomatic::EventKind::load:
      return op.kind == OpKind::load || op.kind == OpKind::plain_load;
    case axiomatic::EventKind::store:
      return op.kind == OpKind::store || op.kind == OpKind::plain_store;
    case axiomatic::EventKind::rmw:
      return op.kind == OpKind::rmw;
    case axiomatic::EventKind::fence:
      return op.kind == OpKind::fence;
    case axiomatic::EventKind::init:
      return false;
  }
  return false;
}

}  // namespace

std::size_t WitnessScheduler::pick(std::span<const sim::Candidate> candidates) {
  log_.clear();  // only asked for so that every step is seen; nothing reads it
  if (next_ == plan_.size()) {
    // Past the plan the engine may only be finishing (drains are all in the plan).
    failure_ = fmt::format("the engine offers a step past the plan's {} steps (thread {} next)", plan_.size(),
                           candidates.front().choice.thread);
    return kAbandon;
  }
  const axiomatic::PlanStep& want = plan_[next_];
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const sim::Candidate& c = candidates[i];
    if (c.choice.thread != static_cast<sim::ThreadId>(want.thread)) continue;
    if (want.kind == axiomatic::PlanStep::Kind::drain) {
      if (c.choice.kind != sim::Choice::Kind::drain) continue;
      ++next_;
      return i;
    }
    if (c.choice.kind != sim::Choice::Kind::step) continue;
    // A thread's first step runs it up to and through its first visible operation.
    if (c.op.kind != sim::OpKind::start && !performs(c.op, want.event)) {
      failure_ = fmt::format("step {} of the plan is {}, but the engine's thread {} is at a {}", next_ + 1,
                             axiomatic::describe(want), want.thread, sim::name_of(c.op.kind));
      return kAbandon;
    }
    ++next_;
    return i;
  }
  failure_ = fmt::format("step {} of the plan is {}, which the engine does not offer there", next_ + 1,
                         axiomatic::describe(want));
  return kAbandon;
}

}  // namespace lockstep::driver
