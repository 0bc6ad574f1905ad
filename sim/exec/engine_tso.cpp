// Engine: x86-TSO store buffers (Owens, Sarkar and Sewell, "A better x86 memory model:
// x86-TSO", 2009). Each thread's plain and non-seq_cst stores wait in a FIFO buffer; its own
// loads see them first (store-to-load forwarding); locked read-modify-writes, seq_cst
// stores (xchg) and seq_cst fences (mfence) need the buffer empty; so does parking and
// unparking (entering the kernel executes locked instructions).
//
// When a buffered store reaches memory is the nondeterminism TSO adds. Exploring, it is the
// oracle's choice like any other (a `drain` candidate per thread with a non-empty buffer),
// and an operation that needs the buffer empty is not offered until the drains before it
// were chosen, as in the abstract machine of Owens et al. and in Abdulla et al.'s
// "Stateless model checking for TSO and PSO" (TACAS 2015): each drain stays a step of the
// buffer's process, so the model checker sees every write to memory as the same event
// whichever step made it happen. Timed, a store becomes visible once its write has taken
// the cost model's time, and a locked operation waits for its buffer in virtual time.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"

namespace lockstep::sim {

namespace {
// [guess] A store retires into the buffer in about a cycle; its cost in the memory system
// (ownership of the line) runs while the thread goes on, and the store drains when it is
// paid.
constexpr std::uint64_t kBufferInsertNs = 1;
}  // namespace

// Buffers a store. Returns false when the store must go to memory directly.
bool Engine::buffer_store(SimThread& t, void* host, std::uint64_t addr, unsigned size, std::uint64_t value,
                          std::uint64_t start, std::uint64_t* latency) {
  if (!tso()) return false;
  *latency = kBufferInsertNs;
  if (t.store_buffer.size() >= limits_.store_buffer_entries) {
    // Exploring, a store to a full buffer is not offered until a drain made room.
    if (exec_.mode == EngineMode::explore) throw std::logic_error("explore: a store ran with its store buffer full");
    // Full: the store waits for the oldest one to leave.
    if (exec_.mode == EngineMode::timed) {
      const std::uint64_t free_at = t.store_buffer.front().visible_ns;
      if (free_at > start) *latency += free_at - start;
      drain_due(std::max(start, free_at));
    }
    if (t.store_buffer.size() >= limits_.store_buffer_entries)
      drain_oldest(static_cast<ThreadId>(&t - threads_.data()));
  }
  std::uint64_t visible = start;
  if (exec_.mode == EngineMode::timed) {
    const std::uint64_t write_ns = costs_.access_ns(
        Access{OpKind::store, t.cpu, addr, static_cast<std::uint8_t>(size), start, memory_.node_of_address(addr)});
    // The store asks for its line as it enters the buffer (the cost model has just priced
    // that request from `start`), so the requests of several buffered stores are in flight
    // together; they still reach memory in order [guess: x86 cores request ownership for
    // buffered stores ahead of their turn, and the stores commit in program order].
    const std::uint64_t after = t.store_buffer.empty() ? start : t.store_buffer.back().visible_ns;
    visible = std::max(start + write_ns, after);
    // That request takes the line from spinners' copies now, as an unbuffered store's does:
    // they ask again at once and queue behind it (wake_invalidated_spinners), where waking
    // them when the store drains would make each pay a whole transfer more.
    wake_invalidated_spinners();
  }
  t.store_buffer.push_back(
      BufferedStore{addr, host, static_cast<std::uint8_t>(size), value, visible, current_step(), t.stores_buffered++});
  ++exec_.buffered_stores;
  return true;
}

const BufferedStore* Engine::forward(const SimThread& t, std::uint64_t addr, unsigned size) const {
  for (auto it = t.store_buffer.rbegin(); it != t.store_buffer.rend(); ++it) {
    if (it->addr == addr && it->size == size) return &*it;
    if (it->addr < addr + size && addr < it->addr + it->size)
      throw std::logic_error("a load overlaps a buffered store of another size: not modelled");
  }
  return nullptr;
}

void Engine::drain_oldest(ThreadId id) {
  SimThread& t = threads_[id];
  if (t.store_buffer.empty()) throw std::logic_error("drain of an empty store buffer");
  const bool waited = waits_for_buffer(t);
  const BufferedStore s = t.store_buffer.front();
  t.store_buffer.erase(t.store_buffer.begin());
  --exec_.buffered_stores;
  std::memcpy(s.host, &s.value, s.size);
  log_access(s.addr, s.size, true);
  // The store left the thread's buffer: the loads of the thread's that forwarding answered
  // from it now count as readers of its location (StepAccess::space). The location in that
  // space is the store itself (its ordinal), not the address it writes: whether a drain is
  // the newest store to its address depends on whether the thread buffered another one
  // since, an independent step, and a footprint that changes with an independent step makes
  // a search miss executions (difftest seed 25: t0: y=2; t1: y=1; r0=y; y=r0+1).
  log_access(s.ordinal, 1, true, buffer_space(id));
  // Its pending operation waited for this drain: a causal edge, like an unpark's.
  if (waited && !waits_for_buffer(t)) t.enabled_by_drain = current_step();
  if (races_.enabled()) race_drained(id, s.addr);
  const std::uint64_t at = exec_.mode == EngineMode::timed ? s.visible_ns : exec_.now_ns;
  if (exec_.trace != nullptr) exec_.trace->access(at, id, t.cpu, OpKind::drain, s.addr, s.size, s.value, 0);
  // Whoever spins on this location may now see the new value.
  const ThreadId writer = exec_.current;
  exec_.current = id;
  note_write(s.addr, at);
  exec_.current = writer;
}

// A locked instruction or mfence: everything this thread buffered reaches memory first.
// Exploring, the engine offered the operation only once its buffer was empty
// (waits_for_buffer), so there is nothing left to drain here.
void Engine::drain_own(SimThread& t) {
  if (t.store_buffer.empty()) return;
  if (exec_.mode == EngineMode::explore)
    throw std::logic_error("explore: a locked operation ran with a non-empty store buffer");
  if (exec_.mode == EngineMode::timed) {
    t.clock_ns = std::max(t.clock_ns, t.store_buffer.back().visible_ns);
    drain_due(t.clock_ns);
  }
  while (!t.store_buffer.empty()) drain_oldest(static_cast<ThreadId>(&t - threads_.data()));
}

// Timed mode: every buffered store whose write has completed by `now_ns` reaches memory, in
// the order they complete (ties by thread).
void Engine::drain_due(std::uint64_t now_ns) {
  while (exec_.buffered_stores > 0) {
    ThreadId next = kNoThread;
    for (ThreadId id = 0; id < threads_.size(); ++id) {
      const auto& buffer = threads_[id].store_buffer;
      if (buffer.empty() || buffer.front().visible_ns > now_ns) continue;
      if (next == kNoThread || buffer.front().visible_ns < threads_[next].store_buffer.front().visible_ns) next = id;
    }
    if (next == kNoThread) return;
    drain_oldest(next);
  }
}

// Timed mode, when no thread can run: the buffered store that lands first lands.
void Engine::drain_next_due() {
  std::uint64_t first = ~std::uint64_t{0};
  for (const SimThread& t : threads_)
    if (!t.store_buffer.empty()) first = std::min(first, t.store_buffer.front().visible_ns);
  drain_due(first);
}

// The end of an execution: what is still buffered reaches memory before the final checks.
void Engine::drain_everything() {
  if (exec_.mode == EngineMode::timed) drain_due(~std::uint64_t{0});
  for (ThreadId id = 0; id < threads_.size(); ++id)
    while (!threads_[id].store_buffer.empty()) drain_oldest(id);
}

void Engine::add_drain_candidates() {
  if (exec_.buffered_stores == 0) return;
  const auto n = static_cast<ThreadId>(threads_.size());  // once: push_back may alias for the compiler
  const SimThread* threads = threads_.data();
  for (ThreadId id = 0; id < n; ++id) {
    const SimThread& t = threads[id];
    if (t.store_buffer.empty()) continue;
    const BufferedStore& s = t.store_buffer.front();
    candidates_.push_back(
        Candidate{Choice{Choice::Kind::drain, id}, t.cpu, exec_.now_ns,
                  PendingOp{.kind = OpKind::drain, .size = s.size, .order = std::memory_order_relaxed, .addr = s.addr},
                  waits_for_buffer(t)});
  }
}

}  // namespace lockstep::sim
