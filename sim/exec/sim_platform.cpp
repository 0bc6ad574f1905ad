#include "sim/exec/sim_platform.hpp"

namespace lockstep::sim {

// The engine writes the note if the note comes from one of its simulated threads.
void SimPlatform::note_lock_traced(const void* lock, LockNote what, bool shared, const std::source_location& site) {
  if (Engine* e = Engine::current(); e != nullptr) e->note_lock(lock, what, shared, site);
}

void SimPlatform::note_futex_queue_traced(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address,
                                          const void* waiter_node) {
  if (Engine* e = Engine::current(); e != nullptr) e->note_futex_queue(what, bucket, key_address, waiter_node);
}

void SimPlatform::note_step_traced(StepNote what, std::string_view text) {
  if (Engine* e = Engine::current(); e != nullptr) e->note_step(what, text);
}

}  // namespace lockstep::sim
