// The engine's per-execution records of threads and CPUs (private to sim/exec).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

#include <boost/container/small_vector.hpp>
#include <functional>
#include <string>
#include <vector>

#include "sim/exec/engine.hpp"

namespace lockstep::sim {

// Timed: a thread in one of these states waits for another thread's action (a CPU to free,
// an unpark, a write) to become runnable.
constexpr bool waits(ThreadRunState state) {
  return state == ThreadRunState::ready || state == ThreadRunState::parked || state == ThreadRunState::spinning;
}

// A read made by the current spin-loop iteration, with the value it returned.
struct SpinRead {
  std::uint64_t addr = 0;
  const void* host = nullptr;
  std::uint8_t size = 0;
  std::uint64_t value = 0;
};

// A store waiting in a thread's store buffer.
struct BufferedStore {
  std::uint64_t addr = 0;
  void* host = nullptr;
  std::uint8_t size = 0;
  std::uint64_t value = 0;
  std::uint64_t visible_ns = 0;  // timed mode: when it reaches memory
  std::uint32_t step = kNoStep;  // the step that buffered it (event log)
  std::uint32_t ordinal = 0;     // which of its thread's buffered stores (StepAccess::space)
};

struct Engine::SimThread {
  std::string name;
  CpuId cpu = 0;
  std::uint64_t left_cpu_ns = 0;  // timed mode: when it last left a CPU (ULE's ts_rltick)
  std::function<void()> body;
  ThreadRunState state = ThreadRunState::ready;
  bool started = false;
  bool permit = false;  // an unpark that arrived before the park
  // Exploring: the thread has not started, or was blocked (parked, spinning) and is runnable
  // again. Choosing it runs it up to and through its next operation in one step: the code
  // before that operation touches nothing shared, so a step of its own would only be a
  // choice that changes nothing (and one whose accesses a model checker could not know).
  bool resuming = false;
  std::uint64_t clock_ns = 0;  // when its next operation can start (timed mode)
  // Timed: scheduling points so far, queued or run ahead: its next tie key's index.
  std::uint64_t scheduling_points = 0;
  // Timed: its last access ran ahead of a thread not later than it, from this clock, and it
  // has not been queued since (Engine::catch_up).
  bool ahead = false;
  std::uint64_t ahead_clock_ns = 0;
  PendingOp pending;
  // Explore mode: what the current spin-loop iteration read, and whether it wrote.
  std::vector<SpinRead> spin_watch;
  bool spin_wrote = false;
  bool spin_overflow = false;
  bool spin_timed = false;                   // the iteration read the clock: it may be waiting for a time, not a write
  std::uint32_t enabled_by = kNoStep;        // event log: the step that last made it runnable
  std::uint32_t enabled_by_drain = kNoStep;  // event log: the drain its pending operation waited for
  PendingOp last_op;                         // the operation before the pending one, for deadlock reports
  // x86-TSO: oldest first. Short (a few entries exploring, tens timed), so a vector that
  // allocates nothing until it outgrows its inline room beats a deque, which allocates even
  // when empty (every thread of every execution).
  boost::container::small_vector<BufferedStore, 8> store_buffer;
  std::uint32_t stores_buffered = 0;  // this execution, for BufferedStore::ordinal
};

// A CPU's state but its queue (SimCpu), so that a new execution resets it whole.
struct SimCpuState {
  ThreadId running = kNoThread;
  std::uint64_t slice_end_ns = 0;
  std::uint64_t idle_since_ns = 0;
  // The idle loop (MachineShape::idle other than none): recent switches, and how many there
  // were when the CPU went idle.
  SwitchCounter switches;
  std::uint32_t idle_switches = 0;
};

struct Engine::SimCpu : SimCpuState {
  std::deque<ThreadId> queue;  // ready threads, FIFO (round robin)

  // A fresh CPU's state, the queue's storage kept: a deque allocates when it is built, and
  // every execution starts here.
  void reset() {
    static_cast<SimCpuState&>(*this) = SimCpuState{};
    queue.clear();
  }
};

// --- per-operation members, inline (engine_cpus.cpp has the rest of virtual time) --------

inline std::uint64_t Engine::start_time() const {
  return exec_.mode == EngineMode::timed ? threads_[exec_.current].clock_ns : exec_.now_ns;
}

// Virtual time never wraps: every cost is at most 10^9 ns (spec/machine_loader.cpp), so
// only a run of more than 10^9 costly steps could pass this, and it ends with an error
// instead of reporting a clock that wrapped (a cost of 2^64 - 1 ns once reported 596 ns).
inline constexpr std::uint64_t kMaxVirtualNs = std::uint64_t{1} << 62;  // about 146 years
[[noreturn]] void virtual_time_overflow(std::uint64_t at_ns, std::uint64_t by_ns);
inline std::uint64_t advance_virtual(std::uint64_t at_ns, std::uint64_t by_ns) {
  if (by_ns > kMaxVirtualNs - std::min(at_ns, kMaxVirtualNs)) virtual_time_overflow(at_ns, by_ns);
  return at_ns + by_ns;
}

inline void Engine::finish_step(std::uint64_t latency_ns) {
  SimThread& t = threads_[exec_.current];
  if (exec_.mode == EngineMode::timed) {
    t.clock_ns = advance_virtual(t.clock_ns, latency_ns);
  } else {
    exec_.now_ns = advance_virtual(exec_.now_ns, latency_ns);
    t.clock_ns = exec_.now_ns;
  }
  if (++exec_.steps > limits_.max_steps) [[unlikely]]
    exceed_step_bound();
  constexpr std::uint64_t kPublishEvery = 4096;  // a power of two: one AND per step
  if ((exec_.steps & (kPublishEvery - 1)) == 0) [[unlikely]] {
    published_steps_.store(exec_.steps, std::memory_order_relaxed);
    published_ns_.store(t.clock_ns, std::memory_order_relaxed);
  }
}

// Inline: every exploring step asks it of every thread (engine_tso.cpp has the rest of TSO).
inline bool Engine::waits_for_buffer(const SimThread& t) const {
  if (t.store_buffer.empty() || !tso() || exec_.mode != EngineMode::explore || t.resuming) return false;
  const PendingOp& op = t.pending;
  switch (op.kind) {
    case OpKind::rmw:
    case OpKind::park:
    case OpKind::unpark:
      return true;
    case OpKind::fence:
      return op.order == std::memory_order_seq_cst;
    case OpKind::store:
      return op.order == std::memory_order_seq_cst || t.store_buffer.size() >= limits_.store_buffer_entries;
    case OpKind::plain_store:
      return t.store_buffer.size() >= limits_.store_buffer_entries;
    default:
      return false;
  }
}

// Timed mode: the running thread yields its CPU at the end of its time slice, if another
// thread waits for that CPU.
inline void Engine::maybe_preempt(SimThread& t) {
  SimCpu& cpu = cpus_[static_cast<std::size_t>(t.cpu)];
  if (t.clock_ns < cpu.slice_end_ns) [[likely]]
    return;
  if (cpu.queue.empty()) {
    cpu.slice_end_ns = t.clock_ns + costs_.time_slice_ns();
    return;
  }
  preempt(t, cpu);
}

// Timed: whether `t` runs its next operation now, before threads with earlier clocks, which
// cannot change it (docs/architecture.md, "Running ahead"): a quiet read within the
// lookahead of the earliest of them, while no thread waits to be woken (a wake, a preemption
// or the balancer would act between them), no store is buffered (drains run by the clock)
// and neither its slice nor the balancer's next run is due. If so, it takes its scheduling
// point without a queue entry, and notes where it would have been queued for catch_up.
inline bool Engine::runs_ahead(SimThread& t, const PendingOp& op) {
  // Reads only (quiet_hit_ns says why): the test that fails most often, and the cheapest.
  if ((op.kind != OpKind::load && op.kind != OpKind::plain_load) || exec_.lookahead_ns == 0 || exec_.waiting != 0 ||
      exec_.buffered_stores != 0)
    return false;
  const std::uint64_t earliest = ready_.empty() ? UINT64_MAX : ready_.earliest_clock();
  if (earliest != UINT64_MAX && t.clock_ns >= earliest + exec_.lookahead_ns) return false;
  if (t.clock_ns >= cpus_[static_cast<std::size_t>(t.cpu)].slice_end_ns || t.clock_ns >= exec_.next_balance_ns)
    return false;
  exec_.quiet_ns = costs_.quiet_hit_ns(t.cpu, op.addr, op.kind, t.clock_ns);
  if (exec_.quiet_ns == CostModel::kNotQuiet) return false;
  ++t.scheduling_points;             // the key it would have been queued with, unused
  t.ahead = t.clock_ns >= earliest;  // a thread no later than every other is not ahead
  t.ahead_clock_ns = t.clock_ns;
  if (t.clock_ns > earliest) ++exec_.ran_ahead;
  return true;
}

// The access's latency: the quiet hit's that running ahead already made, or the model's.
inline std::uint64_t Engine::access_ns(const Access& access) {
  if (exec_.quiet_ns != CostModel::kNotQuiet) return std::exchange(exec_.quiet_ns, CostModel::kNotQuiet);
  return costs_.access_ns(access);
}

}  // namespace lockstep::sim
