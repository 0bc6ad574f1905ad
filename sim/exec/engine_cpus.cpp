// Engine: simulated CPUs, run queues and virtual time.
//
// Timed mode: each thread has a clock (when its next operation can start); a CPU runs one
// thread at a time, round robin over its run queue with a time slice and a context-switch
// cost; park takes a thread off its CPU, unpark puts it back after a wake latency. The next
// step is the running thread with the earliest clock.
//
// Explore mode: CPUs do not restrict which thread goes next (any preemption is possible on a
// real machine); one global clock advances by each operation's latency.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/properties.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"
#include "sim/rng.hpp"

namespace lockstep::sim {

void Engine::start_cpus() {
  const std::uint64_t slice = costs_.time_slice_ns();
  for (ThreadId id = 0; id < threads_.size(); ++id) {
    SimThread& t = threads_[id];
    t.pending = PendingOp{OpKind::start};
    if (exec_.mode == EngineMode::explore) {
      t.state = ThreadRunState::running;
      t.resuming = true;
      continue;
    }
    // A placement policy places a starting thread by its own rule (ULE's fork placement).
    if (shape_.placement != ThreadPlacement::pinned) {
      const CpuId to = place(t, false, 0);
      if (to != t.cpu) ++exec_.migrations;
      t.cpu = to;
    }
    SimCpu& cpu = cpus_[static_cast<std::size_t>(t.cpu)];
    if (cpu.running == kNoThread) {
      cpu.running = id;
      cpu.slice_end_ns = slice;
      t.state = ThreadRunState::running;
      enqueue(id);
      if (exec_.trace != nullptr) exec_.trace->cpu(0, t.cpu, id);
    } else {
      t.state = ThreadRunState::ready;
      cpu.queue.push_back(id);
    }
  }
  exec_.waiting = static_cast<std::size_t>(
      std::count_if(threads_.begin(), threads_.end(), [](const SimThread& t) { return waits(t.state); }));
  // ULE balances once at start-up (sched_setup_smp), then every interval or so.
  if (exec_.mode == EngineMode::timed && uses_topology(shape_.placement) && shape_.balance_interval_ns > 0)
    exec_.next_balance_ns = 0;
}

void Engine::balance(SimThread& ticking, std::uint64_t at_ns) {
  for (const BalanceMove& m : balance_moves(*cpu_tree_, cpu_loads(false), cpu_loads(true))) {
    SimCpu& from = cpus_[static_cast<std::size_t>(m.from)];
    SimCpu& to = cpus_[static_cast<std::size_t>(m.to)];
    if (from.queue.empty()) throw std::logic_error("balance: a move from a CPU with nothing queued");
    const ThreadId id = from.queue.back();
    from.queue.pop_back();
    threads_[id].cpu = m.to;
    ++exec_.migrations;
    ++exec_.balancer_moves;
    to.queue.push_back(id);
    if (to.running != kNoThread) continue;  // a busy CPU takes it at its next switch
    // An idle one: ULE's tdq_notify sends it an IPI (sched_ule.c). Under an idle policy the
    // state its idle loop reached decides the wake-up, and the balancing CPU pays the IPI
    // [approximation: ULE balances in one CPU's tick; here the tick of the thread whose clock
    // passed the balance time first]; without one, the flat wake-up of any other wake.
    std::uint64_t start = at_ns;
    if (shape_.idle == IdlePolicy::none) {
      start += costs_.wake_ns(m.from, m.to);
    } else {
      const IdleWake w = wake_idle_cpu(m.to, at_ns, m.from);
      start += w.wakee_ns;
      ticking.clock_ns = advance_virtual(ticking.clock_ns, w.waker_ns);
    }
    dispatch(to, std::max(start, to.idle_since_ns));
  }
  // sched_balance: the next run between half and one and a half intervals on (ULE draws with
  // random(); here the run's count hashed as Rng derives sub-streams, so runs stay
  // reproducible and need no seed).
  const std::uint64_t z = Rng::derive(0, ++exec_.balances);
  const std::uint64_t interval = shape_.balance_interval_ns;
  exec_.next_balance_ns = at_ns + std::max<std::uint64_t>(interval / 2, 1) + z % interval;
}

std::uint64_t Engine::now() const {
  if (!on_host()) return start_time();
  if (exec_.mode == EngineMode::explore) return exec_.now_ns;
  std::uint64_t latest = 0;
  for (const SimThread& t : threads_) latest = std::max(latest, t.clock_ns);
  return latest;
}

void Engine::set_state(SimThread& t, ThreadRunState state, std::uint64_t at_ns) {
  exec_.waiting += static_cast<std::size_t>(waits(state)) - static_cast<std::size_t>(waits(t.state));
  t.state = state;
  if (exec_.trace != nullptr) exec_.trace->state(at_ns, static_cast<ThreadId>(&t - threads_.data()), state);
}

void Engine::exceed_step_bound() {
  violation(property::bound_exceeded,
            fmt::format("the execution ran past {} steps (strategy.max_steps): a livelock or an unbounded loop",
                        limits_.max_steps));
}

// The end of `t`'s slice, with another thread waiting for its CPU: round robin.
void Engine::preempt(SimThread& t, SimCpu& cpu) {
  t.left_cpu_ns = t.clock_ns;
  set_state(t, ThreadRunState::ready, t.clock_ns);
  cpu.queue.push_back(exec_.current);
  cpu.running = kNoThread;
  dispatch(cpu, t.clock_ns);
}

void Engine::leave_cpu(SimThread& t) {
  SimCpu& cpu = cpus_[static_cast<std::size_t>(t.cpu)];
  cpu.running = kNoThread;
  t.left_cpu_ns = t.clock_ns;
  if (cpu.queue.empty() && shape_.placement != ThreadPlacement::pinned) {
    // The idle-time balancer: steal a waiting thread from the nearest CPU loaded enough.
    if (const auto victim = steal_from(*cpu_tree_, cpu_loads(false), cpu_loads(true), t.cpu, shape_.placement)) {
      SimCpu& from = cpus_[static_cast<std::size_t>(*victim)];
      const ThreadId id = from.queue.back();
      from.queue.pop_back();
      threads_[id].cpu = t.cpu;
      ++exec_.migrations;
      cpu.queue.push_back(id);
    }
  }
  if (cpu.queue.empty()) {
    cpu.idle_since_ns = t.clock_ns;
    if (shape_.idle != IdlePolicy::none) {
      // The switch to the idle thread counts (FreeBSD counts every switch); the count decides,
      // under the adaptive policy, whether the CPU spins, mwaits or halts.
      const std::uint64_t tick = costs_.idle_costs().tick_ns;
      cpu.switches.count(t.clock_ns, tick);
      cpu.idle_switches = cpu.switches.recent(t.clock_ns, tick);
    }
    if (exec_.trace != nullptr) exec_.trace->cpu(t.clock_ns, t.cpu, kNoThread);
    return;
  }
  dispatch(cpu, t.clock_ns);
}

// Puts the head of `cpu`'s run queue on it at `at_ns`, after a context switch.
void Engine::dispatch(SimCpu& cpu, std::uint64_t at_ns) {
  const ThreadId id = cpu.queue.front();
  cpu.queue.pop_front();
  SimThread& next = threads_[id];
  next.clock_ns = std::max(next.clock_ns, at_ns) + costs_.context_switch_ns();
  if (shape_.idle != IdlePolicy::none) cpu.switches.count(next.clock_ns, costs_.idle_costs().tick_ns);
  cpu.running = id;
  cpu.slice_end_ns = next.clock_ns + costs_.time_slice_ns();
  set_state(next, ThreadRunState::running, next.clock_ns);
  if (exec_.trace != nullptr) exec_.trace->cpu(next.clock_ns, next.cpu, id);
  enqueue(id);
}

// A parked or spinning thread can run again, from `at_ns` on.
std::uint64_t Engine::make_runnable(SimThread& t, std::uint64_t at_ns, CpuId waker_cpu) {
  const auto id = static_cast<ThreadId>(&t - threads_.data());
  if (exec_.mode == EngineMode::explore) {
    set_state(t, ThreadRunState::running, exec_.now_ns);
    t.resuming = true;
    return 0;
  }
  if (shape_.placement != ThreadPlacement::pinned) {
    const CpuId to = place(t, true, at_ns);
    if (to != t.cpu) {
      t.cpu = to;
      ++exec_.migrations;
    }
  }
  SimCpu& cpu = cpus_[static_cast<std::size_t>(t.cpu)];
  std::uint64_t waker_ns = 0;
  if (shape_.idle == IdlePolicy::none) {
    t.clock_ns = std::max(t.clock_ns, at_ns + costs_.wake_ns(waker_cpu, t.cpu));
  } else if (cpu.running == kNoThread) {
    const IdleWake w = wake_idle_cpu(t.cpu, at_ns, waker_cpu);
    t.clock_ns = std::max(t.clock_ns, at_ns + w.wakee_ns);
    waker_ns = w.waker_ns;
  } else {
    // A busy CPU: the thread waits in its run queue; the CPU takes it at its next switch.
    t.clock_ns = std::max(t.clock_ns, at_ns);
  }
  if (cpu.running == kNoThread) {
    cpu.queue.push_front(id);
    dispatch(cpu, std::max(t.clock_ns, cpu.idle_since_ns));
  } else {
    set_state(t, ThreadRunState::ready, t.clock_ns);
    cpu.queue.push_back(id);
    // A spinner blocked on this CPU would have been preempted at the end of its slice to
    // let this thread run: let it spin again (and be preempted) from now on.
    SimThread& running = threads_[cpu.running];
    if (running.state == ThreadRunState::spinning) wake_spinner(running, t.clock_ns);
  }
  return waker_ns;
}

IdleWake Engine::wake_idle_cpu(CpuId to, std::uint64_t at_ns, CpuId waker_cpu) {
  // The idle loop: the state the CPU reached decides the wake-up's cost. A waker behind the
  // CPU's clock (threads run ahead of each other between scheduling points) finds it just
  // gone idle.
  const SimCpu& cpu = cpus_[static_cast<std::size_t>(to)];
  const std::uint64_t idle_ns = at_ns > cpu.idle_since_ns ? at_ns - cpu.idle_since_ns : 0;
  const IdleCosts& c = costs_.idle_costs();
  const bool smt = !siblings_[static_cast<std::size_t>(to)].empty();
  const std::uint64_t pause_ns = costs_.pause_ns(to);
  const IdleWake w =
      idle_wake(shape_.idle, c, cpu.idle_switches, smt, idle_ns, pause_ns, costs_.path_ns(waker_cpu, to));
  ++exec_.idle_stats.wakes[static_cast<std::size_t>(w.state)];
  if (w.state == IdleState::hlt) ++exec_.idle_stats.ipis;
  const std::array<std::uint64_t, 3> spent = idle_residency(shape_.idle, c, cpu.idle_switches, smt, idle_ns, pause_ns);
  for (std::size_t s = 0; s < spent.size(); ++s) exec_.idle_stats.residency_ns[s] += spent[s];
  return w;
}

Loads Engine::cpu_loads(bool queued_only) const {
  Loads loads(cpus_.size());
  for (std::size_t c = 0; c < cpus_.size(); ++c)
    loads[c] =
        static_cast<std::uint32_t>(cpus_[c].queue.size()) + (!queued_only && cpus_[c].running != kNoThread ? 1 : 0);
  return loads;
}

CpuId Engine::place(const SimThread& t, bool waking, std::uint64_t at_ns) {
  const Loads loads = cpu_loads(false);
  if (shape_.placement == ThreadPlacement::simple) return most_idle(loads);
  if (!waking) return least_loaded_path(*cpu_tree_, loads);
  if (exec_.overlap) {
    // "sharing": near the thread it shares most with, if that package has an idle CPU.
    if (const auto partner = exec_.overlap->partner(static_cast<ThreadId>(&t - threads_.data())))
      if (const auto near = pick_near(*cpu_tree_, loads, t.cpu, threads_[*partner].cpu)) {
        ++exec_.near_placements;
        return *near;
      }
  }
  // Ticks, as ULE counts them: whole ticks between the one it left in and now.
  const std::uint64_t tick = costs_.idle_costs().tick_ns;
  const std::uint64_t left_tick = t.left_cpu_ns / tick;
  const std::uint64_t now_tick = at_ns / tick;
  return pick_affine(*cpu_tree_, loads, t.cpu, affinity_level(now_tick > left_tick ? now_tick - left_tick : 0));
}

CpuId Engine::this_cpu() const { return on_host() ? 0 : threads_[exec_.current].cpu; }

NodeId Engine::node_of(CpuId cpu) const {
  if (cpu < 0 || cpu >= shape_.cpus()) throw std::out_of_range("node_of: no such CPU");
  return shape_.node_of_cpu[static_cast<std::size_t>(cpu)];
}

void Engine::charge(Work kind, std::uint32_t units) {
  if (on_host()) return;
  // A system call's entry and exit are what the trace's `syscall` events mark (the viewer's
  // "in a system call"): entry where its cost begins, exit where its cost ends. Not a step.
  if (exec_.trace != nullptr && kind == Work::syscall_entry) exec_.trace->syscall(start_time(), exec_.current, true);
  charge_cost(kind, units);
  if (exec_.trace != nullptr && kind == Work::syscall_exit) exec_.trace->syscall(start_time(), exec_.current, false);
}

void Engine::charge_cost(Work kind, std::uint32_t units) {
  std::uint64_t cost = costs_.work_ns(kind, units);
  if (exec_.mode == EngineMode::timed) {
    SimThread& t = threads_[exec_.current];
    // Two hardware threads of a core share its pipeline: work is slower while a sibling runs
    // (or ran, in virtual time, past this thread's clock: threads run ahead of each other
    // between scheduling points).
    for (CpuId sibling : siblings_[static_cast<std::size_t>(t.cpu)]) {
      const SimCpu& other = cpus_[static_cast<std::size_t>(sibling)];
      if (other.running != kNoThread || other.idle_since_ns > t.clock_ns) {
        cost = static_cast<std::uint64_t>(std::llround(static_cast<double>(cost) * shape_.smt_work_factor));
        break;
      }
    }
    t.clock_ns = advance_virtual(t.clock_ns, cost);
  } else {
    exec_.now_ns = advance_virtual(exec_.now_ns, cost);
  }
}

void virtual_time_overflow(std::uint64_t at_ns, std::uint64_t by_ns) {
  throw std::runtime_error(
      fmt::format("virtual time would pass 2^62 ns (about 146 years) at {} ns + {} ns: the run "
                  "is far longer than anything the machine's costs (`machine:`) should give",
                  at_ns, by_ns));
}

}  // namespace lockstep::sim
