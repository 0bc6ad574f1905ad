// Engine: executions, fibers and the choice of the next step. Memory operations are in
// engine_ops.cpp; CPUs, run queues and virtual time in engine_cpus.cpp.
#include "sim/exec/engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <typeinfo>
#include <utility>

#include <fmt/format.h>

#include "sim/exec/engine_state.hpp"
#include "sim/exec/fiber_sanitizer.hpp"
#include "sim/exec/fiber_switch.hpp"
#include "sim/rng.hpp"

namespace lockstep::sim {

namespace {
// Hands the engine's fixed, pre-reserved stacks to Boost.Context: creating a fiber
// allocates nothing, and a stack's addresses are the same in every execution.
class ArenaStack {
 public:
  explicit ArenaStack(void* base) : base_(static_cast<char*>(base)) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = kStackBytes;
    sc.sp = base_ + kStackBytes;
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept {}

 private:
  char* base_;
};

// The expect_lines hint's allowance for the stack lines each thread touches (a guess: a
// thread's frames and the waiter nodes it puts on its stack span a few lines).
constexpr std::uint64_t kStackLinesPerThread = 4;
}  // namespace

int MachineShape::nodes() const {
  return node_of_cpu.empty() ? 0 : *std::max_element(node_of_cpu.begin(), node_of_cpu.end()) + 1;
}

const char* name_of(OpKind kind) {
  switch (kind) {
    case OpKind::load:
      return "load";
    case OpKind::store:
      return "store";
    case OpKind::rmw:
      return "rmw";
    case OpKind::fence:
      return "fence";
    case OpKind::pause:
      return "pause";
    case OpKind::park:
      return "park";
    case OpKind::unpark:
      return "unpark";
    case OpKind::plain_load:
      return "plain_load";
    case OpKind::plain_store:
      return "plain_store";
    case OpKind::start:
      return "start";
    case OpKind::drain:
      return "drain";
  }
  return "?";
}

Engine::Engine(MachineShape shape, CostModel& costs, EngineLimits limits)
    : shape_(std::move(shape)), costs_(costs), limits_(limits) {
  if (shape_.cpus() < 1) throw std::invalid_argument("a simulated machine needs at least one CPU");
  if (shape_.nodes() > kMaxNodes)
    throw std::invalid_argument(fmt::format("a simulated machine has at most {} nodes", kMaxNodes));
  memory_.set_policy(shape_.memory_policy, shape_.nodes());
  siblings_.resize(static_cast<std::size_t>(shape_.cpus()));
  if (!shape_.core_of_cpu.empty()) {
    if (static_cast<int>(shape_.core_of_cpu.size()) != shape_.cpus())
      throw std::invalid_argument("core_of_cpu needs one entry per CPU");
    for (CpuId a = 0; a < shape_.cpus(); ++a)
      for (CpuId b = 0; b < shape_.cpus(); ++b)
        if (a != b &&
            shape_.core_of_cpu[static_cast<std::size_t>(a)] == shape_.core_of_cpu[static_cast<std::size_t>(b)])
          siblings_[static_cast<std::size_t>(a)].push_back(b);
  }
  if (shape_.placement != ThreadPlacement::pinned)
    cpu_tree_.emplace(shape_.core_of_cpu, shape_.node_of_cpu, shape_.board_of_cpu);
}

Engine::~Engine() = default;

std::size_t Engine::thread_count() const { return threads_.size(); }

ThreadId Engine::spawn(std::string name, CpuId cpu, std::function<void()> body) {
  if (!on_host()) throw std::logic_error("threads are spawned during setup only");
  if (threads_.size() >= kMaxThreads) throw std::length_error(fmt::format("at most {} simulated threads", kMaxThreads));
  if (cpu < 0 || cpu >= shape_.cpus())
    throw std::out_of_range(
        fmt::format("thread '{}' is pinned to CPU {}, but the machine has {} CPUs", name, cpu, shape_.cpus()));
  const auto id = static_cast<ThreadId>(threads_.size());
  SimThread& t = threads_.emplace_back();
  if (!spare_spin_watches_.empty()) {
    t.spin_watch = std::move(spare_spin_watches_.back());
    spare_spin_watches_.pop_back();
  }
  t.name = std::move(name);
  t.cpu = cpu;
  t.body = std::move(body);
  if (exec_.trace != nullptr) exec_.trace->thread(0, id, t.name, cpu);
  return id;
}

ExecutionResult Engine::run(SimWorkload& workload, Scheduler& oracle, TraceRecorder* trace,
                            std::uint64_t execution_index) {
  // The engine that P:: calls reach, and whether they trace: both restored however the run
  // ends (a workload's setup, a step or a check may throw).
  struct CurrentHere {
    Engine* outer;
    ~CurrentHere() { tls_engine_ = outer; }
  } current_here{std::exchange(tls_engine_, this)};
  struct TracingHere {
    bool outer;
    ~TracingHere() { tls_tracing_ = outer; }
  } tracing_here{std::exchange(tls_tracing_, trace != nullptr || lock_profiler_ != nullptr)};
  for (SimThread& t : threads_) {
    t.spin_watch.clear();
    spare_spin_watches_.push_back(std::move(t.spin_watch));
  }
  threads_.clear();
  if (cpus_.size() == static_cast<std::size_t>(shape_.cpus())) {
    for (SimCpu& cpu : cpus_) cpu.reset();
  } else {
    cpus_.assign(static_cast<std::size_t>(shape_.cpus()), SimCpu{});
  }
  destroy_fibers();
  ready_.clear();
  schedule_.clear();
  schedule_.reserve(schedule_room_);
  memory_.reset();
  costs_.reset();
  // A fresh execution's state, whole (every field's default is its start), then what this
  // run's oracle and trace make of it.
  exec_ = Execution{};
  exec_.oracle = &oracle;
  exec_.trace = trace;
  exec_.mode = oracle.mode();
  if (exec_.mode == EngineMode::timed && shape_.placement == ThreadPlacement::sharing) exec_.overlap.emplace();
  exec_.continue_after_violation = exec_.mode == EngineMode::explore && oracle.continue_after_violation();
  exec_.log = exec_.mode == EngineMode::explore ? oracle.event_log() : nullptr;
  if (exec_.log != nullptr) exec_.log->clear();

  oracle.begin_execution(execution_index);
  exec_.tie_seed = oracle.tie_seed();
  // Running ahead needs the queue's order only where an access can be seen: a trace, a lock
  // profile, the race detector and the cache-overlap record see every access in turn.
  if (exec_.mode == EngineMode::timed && limits_.run_ahead && trace == nullptr && lock_profiler_ == nullptr &&
      !limits_.detect_races && !exec_.overlap)
    exec_.lookahead_ns = costs_.lookahead_ns();
  workload.setup(*this);
  costs_.expect_lines(memory_.heap_bytes() / kCacheLineBytes + kStackLinesPerThread * threads_.size());
  races_.reset(threads_.size(), limits_.detect_races);
  fibers_.resize(threads_.size() + 1);
  if constexpr (kFiberSanitizer) {
    sanitizer_stacks_.assign(fibers_.size(), SanitizerStack{});
    for (ThreadId id = 0; id < threads_.size(); ++id) {
      sanitizer_stack(id).bottom = memory_.stack_base(id);
      sanitizer_stack(id).size = kStackBytes;
    }
  }
  start_cpus();

  const ThreadId first = pick_next();
  if (first != kHostId) switch_to(first);

  // Back on the host: every thread finished, or nothing can run, or the execution stopped.
  if (exec_.oracle_error) {
    destroy_fibers();
    std::rethrow_exception(std::exchange(exec_.oracle_error, nullptr));
  }
  if (!exec_.internal_error.empty()) {
    destroy_fibers();
    if (exec_.internal_is_bug) throw std::logic_error(exec_.internal_error);
    throw std::runtime_error(exec_.internal_error);
  }
  exec_.log = nullptr;  // what follows is not a step
  const bool all_finished = std::all_of(threads_.begin(), threads_.end(),
                                        [](const SimThread& t) { return t.state == ThreadRunState::finished; });
  const bool judge = !exec_.violation && !exec_.abandoned;
  if (judge && !all_finished) record_quiescence(workload);
  destroy_fibers();  // unwinds threads that did not finish; their P:: calls run directly now
  if (judge && !exec_.violation) drain_everything();
  if (judge && !exec_.violation) workload.check(*this);

  ExecutionResult result;
  result.violation = exec_.violation;
  result.violations = std::move(exec_.violations);
  result.steps = exec_.steps;
  if (exec_.violation && exec_.continue_after_violation && exec_.violation->thread != kNoThread) {
    // The execution went on past the violation for the oracle's sake; what it reports is the
    // execution up to the violation (replay stops there).
    result.steps = exec_.violation->step;
    schedule_.resize(std::min(schedule_.size(), exec_.schedule_at_violation));
  }
  result.memory_ops = exec_.memory_ops;
  result.virtual_time_ns = now();
  result.ran_ahead = exec_.ran_ahead;
  schedule_room_ = std::max(schedule_room_, schedule_.size());
  result.schedule = std::move(schedule_);
  result.abandoned = exec_.abandoned;
  if (exec_.trace != nullptr)
    exec_.trace->end(result.virtual_time_ns, exec_.steps,
                     exec_.violation ? (exec_.violation->witness ? "reachable" : "violation") : "pass");
  exec_.trace = nullptr;
  exec_.oracle = nullptr;
  return result;
}

// --- choosing the next step ---------------------------------------------------------------

void Engine::yield_for(PendingOp op) {
  SimThread& t = threads_[exec_.current];
  t.last_op = t.pending;
  t.pending = op;
  if (is_memory_access(op.kind)) {
    costs_.prefetch(t.cpu, op.addr);
    if (exec_.overlap) [[unlikely]]
      exec_.overlap->record(exec_.current, op.addr, op.kind);
  }
  if (t.resuming) {  // explore mode: this operation belongs to the step that resumed it
    t.resuming = false;
    // ... unless it must wait for the thread's store buffer to drain: then it is a step of
    // its own, offered once the buffer allows it.
    if (!waits_for_buffer(t)) return;
  }
  ThreadId next = kHostId;
  if (exec_.mode == EngineMode::timed) {
    if (t.clock_ns >= exec_.next_balance_ns) [[unlikely]]
      balance(t, t.clock_ns);
    maybe_preempt(t);
    if (t.state != ThreadRunState::running) {
      next = pick_next();
    } else if (!exec_.violation) {
      // Often itself: no switch at all.
      next = runs_ahead(t, op) ? exec_.current : ready_.exchange_top(ready_entry(exec_.current));
    }
  } else {
    next = pick_next();
  }
  if (next != exec_.current) switch_to(next);
  if (exec_.buffered_stores > 0 && exec_.mode == EngineMode::timed) drain_due(threads_[exec_.current].clock_ns);
}

ThreadId Engine::pick_next() {
  if ((exec_.violation && !exec_.continue_after_violation) || exec_.abandoned) return kHostId;
  if (exec_.mode == EngineMode::timed) return pick_timed();
  for (;;) {
    gather_explore_candidates();
    if (candidates_.empty()) return kHostId;
    std::size_t index = 0;
    if (candidates_.size() > 1 || exec_.log != nullptr) {
      try {
        index = exec_.oracle->pick(candidates_);
      } catch (...) {
        // The oracle refused (a replayed schedule that does not fit): on a simulated
        // thread's stack the exception must not unwind the fiber; the host rethrows it.
        if (on_host()) throw;
        exec_.oracle_error = std::current_exception();
        exec_.abandoned = true;
        return kHostId;
      }
      if (index == Scheduler::kAbandon) {
        exec_.abandoned = true;
        return kHostId;
      }
      if (index >= candidates_.size()) throw std::logic_error("scheduler picked a candidate that does not exist");
      if (candidates_.size() > 1) schedule_.push_back(candidates_[index].choice);
    }
    const Choice chosen = candidates_[index].choice;
    if (exec_.log != nullptr) log_step(chosen);
    if (chosen.kind == Choice::Kind::step) return chosen.thread;
    drain_oldest(chosen.thread);  // a store reaches memory; then choose again
  }
}

void Engine::record_access(std::uint64_t addr, unsigned size, bool write, std::uint32_t space) {
  exec_.log->accesses.push_back(StepAccess{addr, static_cast<std::uint8_t>(size), write, space});
  ++exec_.log->steps.back().access_count;
}

void Engine::log_step(const Choice& chosen) {
  SimThread& t = threads_[chosen.thread];
  std::uint32_t cause = kNoStep;
  std::uint32_t drain_cause = kNoStep;
  if (chosen.kind == Choice::Kind::drain) {
    cause = t.store_buffer.front().step;
  } else {
    cause = std::exchange(t.enabled_by, kNoStep);
    drain_cause = std::exchange(t.enabled_by_drain, kNoStep);
  }
  exec_.log->steps.push_back(
      StepRecord{chosen, static_cast<std::uint32_t>(exec_.log->accesses.size()), 0, cause, drain_cause});
}

void Engine::gather_explore_candidates() {
  candidates_.clear();
  const auto n = static_cast<ThreadId>(threads_.size());  // once: push_back may alias for the compiler
  const SimThread* threads = threads_.data();
  for (ThreadId id = 0; id < n; ++id) {
    const SimThread& t = threads[id];
    if (t.state != ThreadRunState::running || waits_for_buffer(t)) continue;
    candidates_.push_back(Candidate{Choice{Choice::Kind::step, id}, t.cpu, exec_.now_ns, t.pending});
  }
  add_drain_candidates();
}

ThreadId Engine::pick_timed() {
  // Nobody can run, but stores still wait in buffers: the next one to land may release a
  // blocked spinner.
  while (ready_.empty() && exec_.buffered_stores > 0) drain_next_due();
  return ready_.empty() ? kHostId : ready_.pop();
}

// Timed: a thread that ran ahead goes back into the queue where its last access would have
// queued (the same clock and tie key), so that every thread's earlier accesses run first.
// Called before whatever it does next that another thread's access could change: the
// decision to block a spin loop (it reads memory directly), an invariant, a violation's step
// count, an allocation from the shared arena, its exit. Running ahead is sound only because
// no such read happens while the thread is ahead.
void Engine::catch_up() {
  if (on_host()) return;
  SimThread& t = threads_[exec_.current];
  if (!t.ahead) return;
  t.ahead = false;
  if (exec_.violation) return;
  // Its last read was its last scheduling point: any later one queued it (ready_entry), which
  // clears `ahead`.
  const ThreadId next = ready_.exchange_top(entry_at(exec_.current, t.ahead_clock_ns, t.scheduling_points - 1));
  if (next != exec_.current) switch_to(next);
}

// A thread's place in the queue, fixed when it is queued: its clock, then a seeded tie key.
ReadyEntry Engine::ready_entry(ThreadId id) {
  SimThread& t = threads_[id];
  t.ahead = false;  // queued: whatever ran before it now runs first
  return entry_at(id, t.clock_ns, t.scheduling_points++);
}

// The entry `id` has at `clock_ns` for its scheduling point `point`.
ReadyEntry Engine::entry_at(ThreadId id, std::uint64_t clock_ns, std::uint64_t point) const {
  return ReadyEntry(clock_ns, Rng::key(exec_.tie_seed, id, point), id);
}

void Engine::enqueue(ThreadId id) { ready_.push(ready_entry(id)); }

// --- fibers ---------------------------------------------------------------------------------

// The host's continuation is slot 0 and thread i's is slot i + 1: kHostId is all ones, so
// id + 1 wraps to 0 and a switch needs no branch to find its slot.
boost::context::fiber& Engine::slot(ThreadId id) { return fibers_[static_cast<ThreadId>(id + 1)]; }

// Every switch checks this; the fiber is created (once per thread) out of line.
void Engine::ensure_started(ThreadId id) {
  if (id != kHostId && !threads_[id].started) [[unlikely]]
    start_fiber(id);
}

void Engine::start_fiber(ThreadId id) {
  threads_[id].started = true;
  memory_.guard_stack(id);
  slot(id) = boost::context::fiber(
      std::allocator_arg, ArenaStack(memory_.stack_base(id)), [this, id](boost::context::fiber&& from) {
        if constexpr (kFiberSanitizer)  // the first arrival tells the host's stack
          sanitizer_finish_switch(sanitizer_stack(id), exec_.previous == kHostId ? &sanitizer_stack(kHostId) : nullptr);
        slot(exec_.previous) = std::move(from);
        thread_main(id);
        const ThreadId next = on_thread_exit(id);
        ensure_started(next);
        exec_.previous = id;
        exec_.current = next;
        if constexpr (kFiberSanitizer) sanitizer_start_switch(nullptr, sanitizer_stack(next));
        return std::move(slot(next));
      });
}

void Engine::switch_to(ThreadId next) {
  ensure_started(next);
  const ThreadId me = exec_.current;
  exec_.previous = exec_.current;
  exec_.current = next;
  boost::context::fiber from = resume(me, next);
  // Resumed: whoever switched here left its continuation; a finished fiber leaves none.
  if (from) slot(exec_.previous) = std::move(from);
}

// Runs `next`'s fiber until something switches back to `me` (the caller's).
boost::context::fiber Engine::resume(ThreadId me, ThreadId next) {
  if constexpr (!kFiberSanitizer) {
    (void)me;
    return switch_fiber(std::move(slot(next)));
  } else {
    sanitizer_start_switch(&sanitizer_stack(me), sanitizer_stack(next));
    try {
      boost::context::fiber from = switch_fiber(std::move(slot(next)));
      sanitizer_finish_switch(sanitizer_stack(me));
      return from;
    } catch (const boost::context::detail::forced_unwind&) {
      // The host is destroying this suspended fiber (destroy_fibers said so): arrive, and
      // say now that the unwinding ends on the host's stack, for good.
      sanitizer_finish_switch(sanitizer_stack(me));
      sanitizer_start_switch(nullptr, sanitizer_stack(kHostId));
      throw;
    }
  }
}

// Destroys every fiber, in thread order; a thread that did not finish is unwound on its
// own stack, and its P:: calls run directly (the host is current).
void Engine::destroy_fibers() {
  if constexpr (kFiberSanitizer) {
    for (std::size_t i = 1; i < fibers_.size(); ++i) {
      if (!fibers_[i]) continue;
      sanitizer_start_switch(&sanitizer_stack(kHostId), sanitizer_stack(static_cast<ThreadId>(i - 1)));
      fibers_[i] = boost::context::fiber{};
      sanitizer_finish_switch(sanitizer_stack(kHostId));
    }
  }
  fibers_.clear();
}

SanitizerStack& Engine::sanitizer_stack(ThreadId id) { return sanitizer_stacks_[static_cast<ThreadId>(id + 1)]; }

void Engine::thread_main(ThreadId id) {
  SimThread& t = threads_[id];
  if (exec_.trace != nullptr) exec_.trace->state(start_time(), id, ThreadRunState::running);
  bool threw = false;
  try {
    run_body(id);
  } catch (const std::exception& e) {
    // A design or workload threw: an internal error, not a property violation. The switch
    // away happens outside the handler, since the C++ runtime's record of the exception
    // being handled belongs to the host thread, not to the fiber.
    exec_.internal_error = fmt::format("thread '{}' threw: {}", t.name, e.what());
    // A logic_error is a bug in the simulator or a design (a broken coherence state, a
    // shared object outside simulated memory), and stays one on the host: exit 3, not 2.
    // (std::logic_error itself: its subclasses, such as out_of_range, also report inputs.)
    exec_.internal_is_bug = typeid(e) == typeid(std::logic_error);
    threw = true;
  }
  if (threw) abort_execution();
}

void Engine::run_body(ThreadId id) { threads_[id].body(); }

ThreadId Engine::on_thread_exit(ThreadId id) {
  catch_up();
  SimThread& t = threads_[id];
  set_state(t, ThreadRunState::finished, t.clock_ns);
  t.body = nullptr;
  if (exec_.mode == EngineMode::timed) leave_cpu(t);
  return pick_next();
}

void Engine::abort_execution() {
  switch_to(kHostId);
  // The host never resumes an aborted thread; it destroys the fiber, which unwinds it.
  throw std::logic_error("an aborted simulated thread was resumed");
}

// --- violations -----------------------------------------------------------------------------

void Engine::record_violation(std::string_view property, std::string_view message) {
  catch_up();
  const ThreadId who = on_host() ? kNoThread : exec_.current;
  if (exec_.violation && !exec_.continue_after_violation) return;
  exec_.violations.push_back(Violation{std::string(property), std::string(message), who, now(), exec_.steps});
  if (exec_.violation) return;  // a later one: the first stays the execution's
  exec_.violation = exec_.violations.back();
  exec_.schedule_at_violation = schedule_.size();
  if (exec_.trace != nullptr) exec_.trace->violation(now(), who, property, message);
}

void Engine::violation(std::string_view property, std::string_view message) {
  record_violation(property, message);
  if (on_host()) return;
  if (exec_.continue_after_violation) stop_thread();
  abort_execution();
}

// Exploring with continue_after_violation: the violating thread stops where it is (as if
// it had finished) and the others go on; its fiber is unwound with the rest at the end.
void Engine::stop_thread() {
  SimThread& t = threads_[exec_.current];
  set_state(t, ThreadRunState::finished, exec_.now_ns);
  switch_to(pick_next());
  throw std::logic_error("a stopped simulated thread was resumed");
}

std::string Engine::describe_op(const PendingOp& op) const {
  if (op.addr == 0) return name_of(op.kind);
  return fmt::format("{} of {}", name_of(op.kind), memory_.describe(op.addr));
}

std::string Engine::describe_blocked() const {
  std::string out = "no thread can run:";
  for (ThreadId id = 0; id < threads_.size(); ++id) {
    const SimThread& t = threads_[id];
    if (t.state == ThreadRunState::finished) continue;
    if (t.state == ThreadRunState::parked) {
      out += fmt::format(" thread '{}' is parked (after {});", t.name, describe_op(t.last_op));
    } else if (t.state == ThreadRunState::spinning) {
      std::string watched;
      for (const SpinRead& r : t.spin_watch) watched += (watched.empty() ? "" : ", ") + memory_.describe(r.addr);
      out += fmt::format(" thread '{}' spins waiting for a write to {};", t.name, watched);
    } else {
      out += fmt::format(" thread '{}' is {} (at {});", t.name, name_of(t.state), describe_op(t.pending));
    }
  }
  if (!out.empty() && out.back() == ';') out.pop_back();
  return out;
}

}  // namespace lockstep::sim
