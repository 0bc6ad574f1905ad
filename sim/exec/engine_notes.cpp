// Engine: the notes designs write for traces (P::note_lock, P::note_futex_queue, P::note_step). They only
// write an event: no scheduling point, no cost, no access logged for the model checker and
// no read of simulated memory, so the steps, schedules and results of a traced execution are
// those of an untraced one; only the trace gains lines.
#include <stdexcept>

#include <fmt/format.h>

#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"

namespace lockstep::sim {

void Engine::trace_lock(const void* lock, LockNote what, bool shared, const std::source_location& site) {
  exec_.trace->lock(start_time(), exec_.current, memory_.address_of(lock), what, shared, site);
}

void Engine::profile_lock(const void* lock, LockNote what, bool shared, const std::source_location& site) {
  lock_profiler_->note(exec_.current, static_cast<std::uint32_t>(threads_[exec_.current].cpu), memory_.address_of(lock),
                       what, shared, site, start_time());
}

void Engine::trace_futex_queue(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address,
                               const void* waiter_node) {
  // A waiter's node is one of its own frame objects (P::Local), which are thread i's in area i.
  const long owner = memory_.frame_owner(waiter_node);
  if (owner < 0 || static_cast<std::size_t>(owner) >= threads_.size())
    throw std::logic_error(fmt::format(
        "a futex queue note names a waiter node at {:#x}, in no simulated thread's frames (not a P::Local?)",
        memory_.address_of(waiter_node)));
  exec_.trace->futex_queue(start_time(), exec_.current, what, bucket, key_address, static_cast<ThreadId>(owner));
}

void Engine::trace_step(StepNote what, std::string_view text) {
  exec_.trace->step(start_time(), exec_.current, what, text);
}

}  // namespace lockstep::sim
