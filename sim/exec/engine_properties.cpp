// Engine: the outcomes a workload reports besides violations of its own checks: a witness
// of an `exists` condition, and what quiescence means (a lost wakeup, else a deadlock).
#include <stdexcept>

#include <fmt/format.h>

#include "core/properties.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"

namespace lockstep::sim {

void Engine::witness(std::string_view property, std::string_view message) {
  if (!on_host()) throw std::logic_error("a witness is found by a final check, on the host side");
  if (exec_.violation) return;
  exec_.violation = Violation{std::string(property), std::string(message), kNoThread, now(), exec_.steps, true};
  exec_.violations.push_back(*exec_.violation);
  if (exec_.trace != nullptr) exec_.trace->witness(now(), property, message);
}

bool Engine::parked(ThreadId id) const { return id < threads_.size() && threads_[id].state == ThreadRunState::parked; }

// No thread can run and some have not finished. The workload may know why (docs/sources.md
// section 1 defines a lost wakeup so that a checker can decide it at this point); if not,
// it is a deadlock, described by what each thread waits for.
void Engine::record_quiescence(SimWorkload& workload) {
  if (std::optional<QuiescenceFinding> finding = workload.at_quiescence(*this)) {
    record_violation(finding->property, finding->message);
    return;
  }
  record_violation(property::deadlock, describe_blocked());
}

}  // namespace lockstep::sim
