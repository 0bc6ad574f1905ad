// The deterministic execution engine: simulated threads as fibers, simulated CPUs with run
// queues, virtual time, and a scheduling point at every visible operation.
//
// A thread runs host code freely between visible operations. At each one (every P:: call
// on shared state) it stops and the engine asks the Scheduler oracle which candidate acts
// next; the chosen thread then performs its operation atomically, so an execution is a
// sequence of steps fully decided by the oracle's answers. Switching is symmetric
// (fiber to fiber, one context switch per change of thread, by fiber_switch.hpp's switch
// that keeps the host's return predictions right) and the oracle is consulted only when
// more than one candidate exists.
#pragma once

#include <boost/context/fiber.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/platform.hpp"
#include "core/workloads/metrics.hpp"
#include "profile/lock_profile.hpp"
#include "sim/exec/cache_overlap.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/exec/fiber_sanitizer.hpp"
#include "sim/exec/memory.hpp"
#include "sim/exec/placement.hpp"
#include "sim/exec/race_detector.hpp"
#include "sim/exec/ready_queue.hpp"
#include "sim/exec/trace.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::sim {

// The part of a machine the engine needs: how many CPUs and which node each is on.
struct MachineShape {
  std::vector<NodeId> node_of_cpu{0};
  MemoryPolicy memory_policy = MemoryPolicy::as_requested;
  // SMT: the core of each CPU, so hardware threads of one core share its pipeline (empty:
  // every CPU is a core of its own), and how much slower a thread's work runs while a
  // sibling is busy too.
  std::vector<int> core_of_cpu{};
  // The board of each CPU (empty: one board), a level of the placement tree.
  std::vector<int> board_of_cpu{};
  double smt_work_factor = 1.0;
  // What idle CPUs do while they wait (sim/exec/idle_model.hpp); none: a flat wake_ns.
  IdlePolicy idle = IdlePolicy::none;
  // Where threads run (sim/exec/placement.hpp); pinned: on the CPU their workload gave them.
  ThreadPlacement placement = ThreadPlacement::pinned;
  // Topology placement: ULE's periodic balancer runs every 0.5 to 1.5 times this (drawn
  // afresh each time, as sched_balance does); 0, never.
  std::uint64_t balance_interval_ns = kUleBalanceIntervalNs;
  int cpus() const { return static_cast<int>(node_of_cpu.size()); }
  int nodes() const;
};

struct EngineLimits {
  std::uint64_t max_steps = 1'000'000;  // visible operations per execution
  // x86-TSO: each thread's stores wait in a FIFO store buffer (this deep) before memory;
  // 0 means sequential consistency.
  std::uint32_t store_buffer_entries = 0;
  // Longest watch list a spinning thread may have before it is no longer blocked
  // (explore mode): loops reading more than this are simply re-run.
  static constexpr std::size_t kMaxSpinWatch = 8;
  // Property data_race: track happens-before and check plain accesses (race_detector.hpp).
  // Off unless a scenario asks for it, since it costs a map lookup per access.
  bool detect_races = false;
  // Timed: a thread whose next access is a quiet read (CostModel::quiet_hit_ns) within the
  // machine's lookahead of the earliest other thread runs it without a scheduling decision
  // (docs/architecture.md, "Running ahead"). The results are the same either way; off, the
  // engine queues every access (traced runs always do, so traces list them in time order).
  bool run_ahead = true;
};

struct Violation {
  std::string property;
  std::string message;
  ThreadId thread = kNoThread;  // kNoThread: found at the end of the execution
  std::uint64_t time_ns = 0;
  std::uint64_t step = 0;
  // Not a failure but the opposite: the final state satisfies a herd-style `exists`
  // condition, the outcome the search looks for. It stops the search like a violation and
  // gets a schedule like one, so the outcome can be replayed.
  bool witness = false;
};

// What a workload finds wrong where the engine only sees threads that cannot run.
struct QuiescenceFinding {
  std::string property;
  std::string message;
};

struct ExecutionResult {
  std::optional<Violation> violation;
  std::uint64_t steps = 0;       // visible operations: memory, fences, pauses, park/unpark
  std::uint64_t memory_ops = 0;  // of those, loads, stores and read-modify-writes
  std::uint64_t virtual_time_ns = 0;
  std::uint64_t ran_ahead = 0;  // timed: accesses run ahead of earlier threads (EngineLimits::run_ahead)
  Schedule schedule;
  // The oracle ended the execution early (Scheduler::kAbandon): no verdict, no final check.
  bool abandoned = false;
  // Every violation, in the order found: the first is `violation`; more only when the
  // oracle continues after a violation (Scheduler::continue_after_violation).
  std::vector<Violation> violations;
};

class Engine;
struct BufferedStore;  // engine_state.hpp
struct SpinRead;       // engine_state.hpp

// What a workload does before and after its threads run, on the host side of the engine
// (no scheduling points): allocate and label shared state, spawn threads; check final state.
class SimWorkload {
 public:
  virtual ~SimWorkload() = default;
  virtual void setup(Engine& engine) = 0;
  virtual void check(Engine& engine) = 0;
  // What the last execution measured, for result rows; most workloads measure nothing.
  virtual WorkloadMetrics metrics() const { return {}; }
  // Called when no thread can run and some have not finished, before the engine calls it a
  // deadlock, while the threads' stacks are still alive: a workload that knows why they wait
  // (a lost wakeup, docs/sources.md section 1) says so; nothing means a plain deadlock.
  virtual std::optional<QuiescenceFinding> at_quiescence(Engine&) { return std::nullopt; }
};

class Engine {
 public:
  Engine(MachineShape shape, CostModel& costs, EngineLimits limits = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs one execution from scratch. `trace` may be null.
  ExecutionResult run(SimWorkload& workload, Scheduler& oracle, TraceRecorder* trace,
                      std::uint64_t execution_index = 0);

  // The engine running on this host thread, or null. Inline: every P:: operation asks.
  static Engine* current() { return tls_engine_; }
  // Whether the execution running on this host thread writes a trace or profiles its locks:
  // the one check that trace notes make otherwise (SimPlatform::note_lock), a load and a branch.
  static bool tracing_here() { return tls_tracing_; }

  // --- setup (host side) ---
  ThreadId spawn(std::string name, CpuId cpu, std::function<void()> body);
  const MachineShape& shape() const { return shape_; }
  SimMemory& memory() { return memory_; }

  // --- the platform's operations (SimPlatform forwards here) ---
  std::uint64_t load(const void* host, unsigned size, std::memory_order order, bool plain);
  void store(void* host, unsigned size, std::uint64_t value, std::memory_order order, bool plain);
  std::uint64_t rmw(void* host, unsigned size, RmwOp op, std::uint64_t operand, std::uint64_t desired,
                    std::memory_order order, bool* success);
  // A costed load or store of a simulated address with no host bytes behind it (see
  // SimMemory::reserve_unbacked). Returns the access's latency.
  std::uint64_t touch(std::uint64_t addr, OpKind kind);
  void fence(std::memory_order order);
  void pause();
  void park();
  void unpark(ThreadId target);
  ThreadId self() const { return exec_.current; }
  void* allocate(std::size_t bytes, std::size_t align, NodeId node);
  // P::Local: a shared object in the current thread's frames, and its end.
  SimMemory::FramePush push_frame(std::size_t bytes, std::size_t align) {
    return memory_.push_frame(exec_.current, bytes, align);
  }
  void pop_frame(const void* host, std::uint32_t depth_before) { memory_.pop_frame(host, depth_before); }
  CpuId this_cpu() const;
  NodeId node_of(CpuId cpu) const;
  void charge(Work kind, std::uint32_t units);
  std::uint64_t now() const;
  // P::now() from a design: the clock, and a note that the current spin-loop iteration
  // depends on time (such a loop must not be blocked until a write).
  std::uint64_t read_clock();
  // A frame object (P::Local) is named after its thread as well ("futex_q[waiter]"): the
  // same design code labels every thread's copy.
  void label(const void* host, std::size_t bytes, std::string_view name, const LabelLayout& layout = {});
  // Reports a violated property. From a simulated thread it ends the execution and does not
  // return; from the host side (a workload's final check) it records the first one.
  void violation(std::string_view property, std::string_view message);
  // Evaluates `condition` (P::invariant) as an observer: its loads read what the current
  // thread would read (its own buffered stores first) without a step, a cost or a logged
  // access; a store or read-modify-write in it is a design bug.
  template <class Condition>
  bool observe(Condition&& condition) {
    catch_up();
    struct Observing {
      bool& flag;
      explicit Observing(bool& f) : flag(f) { flag = true; }
      ~Observing() { flag = false; }
    } observing(exec_.observing);
    return static_cast<bool>(condition());
  }
  // Host side, from a final check: the final state is a witness of `property` (an `exists`
  // condition); recorded unless a violation came first (engine_properties.cpp).
  void witness(std::string_view property, std::string_view message);
  // Trace notes from designs (P::note_lock, P::note_futex_queue): an event when this
  // execution is traced, nothing otherwise. Not a scheduling point and no cost, so a traced
  // execution takes exactly the steps of an untraced one (engine_notes.cpp).
  void note_lock(const void* lock, LockNote what, bool shared, const std::source_location& site) {
    if (on_host()) return;
    if (exec_.trace != nullptr) trace_lock(lock, what, shared, site);
    if (lock_profiler_ != nullptr) profile_lock(lock, what, shared, site);
  }
  // Lock profiling (profile/lock_profile.hpp, docs/os.md): the executions run from now on
  // record every lock's waits and holds in virtual time into `profiler` (null: none). Like a
  // trace it changes nothing the execution does.
  void profile_locks(profile::LockProfiler* profiler) { lock_profiler_ = profiler; }
  // Wake-ups of idle CPUs in the last execution, by the state each found the CPU in, and
  // the IPIs they sent (with MachineShape::idle other than none; sim/exec/idle_model.hpp).
  struct IdleStats {
    std::array<std::uint64_t, 3> wakes{};  // by IdleState: spin, mwait, hlt
    std::uint64_t ipis = 0;
    // Idle time that ended in a wake-up, summed over CPUs, by the state it was spent in
    // (idle_residency): what the seed's power argument is about.
    std::array<std::uint64_t, 3> residency_ns{};
  };
  const IdleStats& idle_stats() const { return exec_.idle_stats; }
  // Threads moved to another CPU in the last execution (MachineShape::placement not pinned).
  std::uint64_t migrations() const { return exec_.migrations; }
  // Of those, the periodic balancer's moves.
  std::uint64_t balancer_moves() const { return exec_.balancer_moves; }
  // Of those, wake-ups the "sharing" placement sent to a partner's package.
  std::uint64_t near_placements() const { return exec_.near_placements; }
  void note_futex_queue(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address, const void* waiter_node) {
    if (exec_.trace != nullptr && !on_host()) trace_futex_queue(what, bucket, key_address, waiter_node);
  }
  void note_step(StepNote what, std::string_view text) {
    if (exec_.trace != nullptr && !on_host()) trace_step(what, text);
  }
  // Whether a thread sleeps in park() (for at_quiescence).
  bool parked(ThreadId id) const;

  bool on_host() const { return exec_.current == kHostId; }

  // Accesses outside any execution (a test reading a result after the run): plain reads
  // and writes of the host bytes, no scheduling, no cost.
  static std::uint64_t direct_load(const void* host, unsigned size);
  static void direct_store(void* host, unsigned size, std::uint64_t value);
  static std::uint64_t direct_rmw(void* host, unsigned size, RmwOp op, std::uint64_t operand, std::uint64_t desired,
                                  bool* success);
  std::uint64_t steps() const { return exec_.steps; }
  // What another host thread may read while an execution runs (a progress line): its steps
  // so far and the running thread's virtual time, published every 4096 steps.
  struct Progress {
    std::uint64_t steps = 0;
    std::uint64_t virtual_ns = 0;
  };
  Progress progress() const {
    return {published_steps_.load(std::memory_order_relaxed), published_ns_.load(std::memory_order_relaxed)};
  }
  // Threads of the last execution (they are spawned afresh by each one's setup).
  std::size_t thread_count() const;
  bool store_buffers() const { return tso(); }

 private:
  struct SimThread;
  struct SimCpu;
  static constexpr ThreadId kHostId = kNoThread;

  // scheduling
  void yield_for(PendingOp op);
  ThreadId pick_next();
  void gather_explore_candidates();
  ThreadId pick_timed();
  void switch_to(ThreadId next);
  boost::context::fiber resume(ThreadId me, ThreadId next);
  void destroy_fibers();
  boost::context::fiber& slot(ThreadId id);
  SanitizerStack& sanitizer_stack(ThreadId id);  // ASan builds only (fiber_sanitizer.hpp)
  void ensure_started(ThreadId id);
  void start_fiber(ThreadId id);
  void thread_main(ThreadId id);
  void run_body(ThreadId id);
  ThreadId on_thread_exit(ThreadId id);
  [[noreturn]] void abort_execution();
  [[noreturn]] void stop_thread();

  // CPUs and virtual time
  void start_cpus();
  void leave_cpu(SimThread& t);
  void dispatch(SimCpu& cpu, std::uint64_t at_ns);
  // Returns what the wake-up adds to the waker's own time (an IPI it sends).
  std::uint64_t make_runnable(SimThread& t, std::uint64_t at_ns, CpuId waker_cpu);
  // Under an idle policy: what waking idle CPU `to` at `at_ns` from `waker_cpu` costs, by the
  // state its idle loop reached (counted in the idle statistics).
  IdleWake wake_idle_cpu(CpuId to, std::uint64_t at_ns, CpuId waker_cpu);
  // maybe_preempt, start_time and finish_step run at every operation: inline, in
  // engine_state.hpp, with their rare paths here.
  void maybe_preempt(SimThread& t);
  bool runs_ahead(SimThread& t, const PendingOp& op);
  void catch_up();
  std::uint64_t access_ns(const Access& access);
  void preempt(SimThread& t, SimCpu& cpu);
  std::uint64_t start_time() const;
  void finish_step(std::uint64_t latency_ns);
  bool await_line(std::uint64_t start, std::uint64_t latency_ns);
  void exceed_step_bound();
  void set_state(SimThread& t, ThreadRunState state, std::uint64_t at_ns);
  void charge_cost(Work kind, std::uint32_t units);
  void enqueue(ThreadId id);
  ReadyEntry ready_entry(ThreadId id);
  ReadyEntry entry_at(ThreadId id, std::uint64_t clock_ns, std::uint64_t point) const;

  // x86-TSO store buffers (engine_tso.cpp)
  bool tso() const { return limits_.store_buffer_entries > 0; }
  bool buffer_store(SimThread& t, void* host, std::uint64_t addr, unsigned size, std::uint64_t value,
                    std::uint64_t start, std::uint64_t* latency);
  // Store-to-load forwarding: the newest buffered store to the same bytes, or null.
  const BufferedStore* forward(const SimThread& t, std::uint64_t addr, unsigned size) const;
  void drain_own(SimThread& t);
  void drain_oldest(ThreadId id);
  void drain_due(std::uint64_t now_ns);
  void drain_everything();
  void add_drain_candidates();
  // Exploring under x86-TSO: the thread's pending operation cannot run until its store
  // buffer drains (a locked operation, mfence or xchg store needs it empty; a store needs a
  // free entry). Its drains are then the only way on, each a choice of its own.
  bool waits_for_buffer(const SimThread& t) const;

  // explore-mode spin blocking
  void note_write(std::uint64_t addr, std::uint64_t at_ns);
  void drain_next_due();
  void wake_spinner(SimThread& s, std::uint64_t at_ns);
  void wake_invalidated_spinners();
  bool may_block_spinning(const SimThread& t);
  std::uint64_t observed_load(const void* host, unsigned size) const;
  [[noreturn]] static void write_while_observing();
  void note_read(std::uint64_t addr, const void* host, unsigned size, std::uint64_t value);
  bool spin_reads_unchanged(const SimThread& t) const;

  // The model checker's view of each step (Scheduler::event_log): what it touched.
  void log_access(std::uint64_t addr, unsigned size, bool write, std::uint32_t space = kSharedSpace) {
    if (exec_.log != nullptr) [[unlikely]]
      record_access(addr, size, write, space);
  }
  void record_access(std::uint64_t addr, unsigned size, bool write, std::uint32_t space);
  void log_step(const Choice& chosen);
  std::uint32_t current_step() const {
    return exec_.log == nullptr ? kNoStep : static_cast<std::uint32_t>(exec_.log->steps.size() - 1);
  }

  void record_violation(std::string_view property, std::string_view message);

  // trace notes (engine_notes.cpp)
  void trace_lock(const void* lock, LockNote what, bool shared, const std::source_location& site);
  void profile_lock(const void* lock, LockNote what, bool shared, const std::source_location& site);
  void trace_futex_queue(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address, const void* waiter_node);
  void trace_step(StepNote what, std::string_view text);
  void record_quiescence(SimWorkload& workload);

  // data_race hooks (engine_races.cpp): forward each operation to races_, report a race.
  void race_load(bool plain, std::uint64_t addr, std::memory_order order);
  void race_store(bool plain, std::uint64_t addr, std::memory_order order, bool buffered);
  void race_rmw(std::uint64_t addr, std::memory_order order);
  void race_fence(std::memory_order order);
  void race_unpark(ThreadId target, bool parked);
  void race_parking();
  void race_drained(ThreadId id, std::uint64_t addr);
  void report_race(const Race& race);
  std::string describe_blocked() const;
  std::string describe_op(const PendingOp& op) const;

  static inline thread_local Engine* tls_engine_ = nullptr;
  static inline thread_local bool tls_tracing_ = false;

  MachineShape shape_;
  CostModel& costs_;
  EngineLimits limits_;
  SimMemory memory_;

  // What one execution builds: its threads and CPUs (kept as storage, reset in place) and
  // the schedule it hands out.
  std::vector<SimThread> threads_;
  std::vector<SimCpu> cpus_;
  // Placement (sim/exec/placement.hpp): the machine's tree.
  std::optional<CpuTree> cpu_tree_;
  // ULE's sched_balance at `at_ns`, in the tick of the thread `ticking` (it pays the IPIs to
  // idle CPUs): move queued threads as balance_moves says, and draw the next time.
  void balance(SimThread& ticking, std::uint64_t at_ns);
  // Each CPU's load (1 while running, plus its queue), or its queue alone.
  Loads cpu_loads(bool queued_only) const;
  // Timed mode, a placement policy: the CPU for a starting (`waking` false) or waking thread.
  CpuId place(const SimThread& t, bool waking, std::uint64_t at_ns);
  std::vector<std::vector<CpuId>> siblings_;      // per CPU, the other hardware threads of its core
  std::vector<boost::context::fiber> fibers_;     // one per thread, then the host's
  std::vector<SanitizerStack> sanitizer_stacks_;  // the same slots' stacks, in ASan builds
  std::vector<Candidate> candidates_;
  ReadyQueue ready_;  // timed mode: threads on a CPU, earliest first
  profile::LockProfiler* lock_profiler_ = nullptr;
  std::atomic<std::uint64_t> published_steps_{0};  // progress(): steps and a clock, now and then
  std::atomic<std::uint64_t> published_ns_{0};
  RaceDetector races_;
  Schedule schedule_;

  // Every other field one execution changes, in one value: Engine::run starts an execution
  // by assigning a fresh one, so no field can be forgotten.
  struct Execution {
    Scheduler* oracle = nullptr;
    std::uint64_t tie_seed = 0;  // timed mode: the oracle's, for this execution
    TraceRecorder* trace = nullptr;
    EngineMode mode = EngineMode::explore;
    ThreadId current = kHostId;
    ThreadId previous = kHostId;
    std::uint64_t now_ns = 0;  // explore mode's global clock
    std::uint64_t steps = 0;
    std::uint64_t memory_ops = 0;
    std::size_t spin_blocked = 0;
    std::size_t waiting = 0;         // timed: threads ready for a CPU, parked or spinning
    std::uint64_t lookahead_ns = 0;  // timed: how far a thread may run ahead (0: never)
    std::uint64_t ran_ahead = 0;
    std::uint64_t quiet_ns = CostModel::kNotQuiet;  // the latency of a quiet hit run ahead, until its access asks
    std::size_t buffered_stores = 0;
    IdleStats idle_stats;
    std::uint64_t migrations = 0;
    std::uint64_t balancer_moves = 0;
    std::uint64_t near_placements = 0;
    std::optional<CacheOverlap> overlap;         // "sharing" placement, timed mode: who shares lines
    std::uint64_t balances = 0;                  // periodic balancer runs this execution: its draws' counter
    std::uint64_t next_balance_ns = UINT64_MAX;  // when it runs next (never: UINT64_MAX)
    std::optional<Violation> violation;
    std::vector<Violation> violations;  // every one (continue_after_violation)
    std::size_t schedule_at_violation = 0;
    bool continue_after_violation = false;
    bool abandoned = false;
    bool observing = false;   // in an invariant's condition (observe)
    EventLog* log = nullptr;  // explore mode, when the oracle observes every step
    std::string internal_error;
    bool internal_is_bug = false;
    std::exception_ptr oracle_error;  // the oracle threw on a simulated thread (pick_next)
  };
  Execution exec_;

  // Storage kept from one execution to the next: every execution spawns its threads anew and
  // hands its schedule out, and each grew its vectors from nothing (about 12 of the 20 heap
  // blocks an execution of fib_bench allocated; each costs more with several workers, whose
  // allocator takes locks that one thread does not).
  std::vector<std::vector<SpinRead>> spare_spin_watches_;
  std::size_t schedule_room_ = 0;  // the longest schedule so far
};

}  // namespace lockstep::sim
