// The program interpreter: runs a scenario's thread programs (program.hpp) on any platform.
// Each variable is a P::Atomic or P::Shared word in platform memory, each lock an
// AnySpinlock of the design's kind; registers are thread-private host memory.
// Futex variables are 32-bit P::Atomic words; futex ops go through one FutexTable<P> of the
// design's configuration, created when the program uses any, behind a FutexLedger that
// records the calls so that a stuck execution can be judged a lost wakeup. With
// `design: {mutex: KIND}` the locks are futex mutexes (core/usync/) on that same table.
// Lock and unlock are separate ops, so a thread's lock node (the MCS queue node) outlives
// both: each thread has one per lock, in platform memory on its CPU's NUMA node, as Linux
// keeps its qspinlock nodes per CPU. Condition variables (`condvars:`) are of the design's kind
// (core/usync/any_condvar.hpp) over those mutexes; their ops are recorded in a CondvarLedger,
// which judges a stuck execution by POSIX's promise at the interface.
//
// Threads that die (`may_die`, docs/scenarios.md "Threads that die"): each mortal thread has a
// word `NAME.alive` and a companion thread, `kill:NAME`, whose one step exchanges 0 into it.
// Before each op that touches shared state the mortal thread reads the word and, finding 0,
// dies there: its program stops and the kernel's exit path runs. So when a thread dies (if
// before its end) is the order of two steps, which the scheduling oracle chooses like any
// other, and every strategy, replay and schedule file handles it unchanged. The exit path runs
// at every thread's end, died or finished: the kernel's walk of its robust list
// (usync/robust_futex.hpp) over the robust mutexes.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include "core/futex/futex_deadline.hpp"
#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/properties.hpp"
#include "core/sync/spinlock.hpp"
#include "core/usync/any_condvar.hpp"
#include "core/usync/any_mutex.hpp"
#include "core/usync/robust_futex.hpp"
#include "core/workloads/condvar_ledger.hpp"
#include "core/workloads/expr_eval.hpp"
#include "core/workloads/futex_ledger.hpp"
#include "core/workloads/order_dispatch.hpp"
#include "core/workloads/program.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

template <Platform P>
class ProgramWorkload {
 public:
  static constexpr WorkloadHooks kHooks{.reached = true, .at_quiescence = true};

  explicit ProgramWorkload(std::shared_ptr<const program::Program> program) : program_(std::move(program)) {}
  ~ProgramWorkload() { release(); }
  ProgramWorkload(const ProgramWorkload&) = delete;
  ProgramWorkload& operator=(const ProgramWorkload&) = delete;

  void setup(const SpawnFn& spawn) {
    const program::Program& prog = *program_;
    for (const program::Variable& v : prog.variables) {
      Cell cell;
      if (v.futex) {
        cell.word = make_on<P, Word>(v.node, std::max<std::uint64_t>(v.align, 4), static_cast<std::uint32_t>(v.init));
        P::label(cell.word, sizeof(Word), v.name);
      } else if (v.atomic) {
        cell.atomic = make_on<P, Atomic>(v.node, v.align, v.init);
        P::label(cell.atomic, sizeof(Atomic), v.name);
      } else {
        cell.plain = make_on<P, Plain>(v.node, v.align, v.init);
        P::label(cell.plain, sizeof(Plain), v.name);
      }
      cells_.push_back(cell);
    }
    if (!prog.mutex) make_spinlocks();
    if (prog.uses_futex_table()) {
      futex::FutexMachine machine{1, 1, static_cast<int>(prog.threads.size())};
      for (const program::ThreadProgram& t : prog.threads) {
        machine.cpus = std::max(machine.cpus, t.cpu + 1);
        machine.nodes = std::max(machine.nodes, P::node_of(t.cpu) + 1);
      }
      futexes_.emplace(prog.futex, machine, prog.threads.size());
    }
    if (prog.mutex) make_mutexes(*prog.mutex);
    make_condvars();
    holder_ = std::vector<std::atomic<std::size_t>>(prog.locks.size());
    for (std::atomic<std::size_t>& h : holder_) h.store(kNobody, std::memory_order_relaxed);
    locking_ = std::vector<std::atomic<int>>(prog.threads.size());
    for (std::atomic<int>& l : locking_) l.store(-1, std::memory_order_relaxed);
    make_companion_state();
    std::size_t total = 0;
    for (const program::ThreadProgram& t : prog.threads) total += t.registers.size();
    register_file_.assign(total, 0);  // whole before the views into it are taken
    for (std::size_t i = 0, at = 0; i < prog.threads.size(); at += prog.threads[i].registers.size(), ++i)
      registers_.emplace_back(register_file_.data() + at, prog.threads[i].registers.size());
    for (std::size_t i = 0; i < prog.threads.size(); ++i) {
      const program::ThreadProgram& t = prog.threads[i];
      spawn(t.name, t.cpu, [this, i] {
        if (futexes_) futexes_->bind(i);
        try {
          run(program_->threads[i].body, registers_[i]);
        } catch (const Died&) {
          // Nothing in the handler: the exit path makes P:: calls, which may switch fibers.
        }
        exit_thread(i);
      });
    }
    // The companions, after every program thread (whose ids are their indices).
    for (std::size_t i = 0; i < prog.threads.size(); ++i) {
      const program::ThreadProgram& t = prog.threads[i];
      if (Word* life = lives_[i]; life != nullptr)
        spawn(fmt::format("kill:{}", t.name), t.cpu, [life] { life->exchange(0, std::memory_order_seq_cst); });
      if (Deadline* deadline = deadlines_[i]; deadline != nullptr)
        spawn(fmt::format("timer:{}", t.name), t.cpu, [deadline] { deadline->expire(); });
    }
  }

  // Final-state conditions, evaluated after every thread finished; and POSIX's promise for the
  // condvars, which a later signal can hide from a stuck-thread check (CondvarLedger).
  void check() const {
    if (const std::optional<CondvarLedger::Lost> lost = condvar_ledger_.lost_wakeup())
      P::violation(property::lost_wakeup, describe(*lost));
    for (const program::FinalCondition& c : program_->forall) {
      if (!holds(c))
        P::violation(c.property, fmt::format("{}: final state fails '{}' ({})", c.where, c.expr.text, final_state()));
    }
  }

  // The first `exists` condition the final state satisfies: this execution is its witness.
  std::optional<program::Finding> reached() const {
    for (const program::FinalCondition& c : program_->exists) {
      if (!holds(c)) continue;
      return program::Finding{c.property,
                              fmt::format("{}: final state satisfies '{}' ({})", c.where, c.expr.text, final_state())};
    }
    return std::nullopt;
  }

  // No thread can run and some have not finished; `sleeping` says whether a thread is parked.
  // A lost wakeup when the futex calls say so (FutexLedger), when a condvar broke POSIX's
  // promise (CondvarLedger), or when a thread sleeps in lock() on a mutex nobody holds (a
  // mutex's promise: a lock that is free is taken); else nothing: a deadlock.
  std::optional<program::Finding> at_quiescence(const std::function<bool(typename P::Thread)>& sleeping) const {
    if (!futexes_) return std::nullopt;
    const auto in_cond_wait = [this](std::size_t t) { return condvar_ledger_.waiting(t); };
    if (const std::optional<typename Ledger::LostWakeup> lost = futexes_->lost_wakeup(sleeping, in_cond_wait))
      return program::Finding{"lost_wakeup", describe(*lost)};
    if (const std::optional<CondvarLedger::Lost> lost = condvar_ledger_.lost_wakeup())
      return program::Finding{"lost_wakeup", describe(*lost)};
    return asleep_on_free_mutex(sleeping);
  }

  // Puts every variable back to its initial value and every register to 0, and forgets the
  // futex calls, so that the threads can run their programs again: a native litmus run runs
  // them millions of times on threads kept alive (docs/model-checking.md, "Native litmus
  // runs"). Call with no program thread running; the caller publishes the values to the
  // threads (the native harness's barrier does). Locks are not rebuilt: a program that ends
  // holding one makes the next run wait for it, which the harness's watchdog reports.
  void reset() {
    const program::Program& prog = *program_;
    for (std::size_t v = 0; v < cells_.size(); ++v) {
      const std::uint64_t init = prog.variables[v].init;
      Cell& c = cells_[v];
      if (c.word != nullptr) {
        c.word->store(static_cast<std::uint32_t>(init), std::memory_order_relaxed);
      } else if (c.atomic != nullptr) {
        c.atomic->store(init, std::memory_order_relaxed);
      } else {
        c.plain->store(init);
      }
    }
    std::fill(register_file_.begin(), register_file_.end(), 0);
    if (futexes_) futexes_->reset();
    condvar_ledger_.reset();
    for (std::atomic<std::size_t>& h : holder_) h.store(kNobody, std::memory_order_relaxed);
    for (std::atomic<int>& l : locking_) l.store(-1, std::memory_order_relaxed);
    for (Word* w : lives_)
      if (w != nullptr) w->store(1, std::memory_order_relaxed);
    for (Deadline* d : deadlines_)
      if (d != nullptr) d->reset();
  }

  std::uint64_t value_of(std::size_t var) const { return load(var); }
  std::int64_t register_of(std::size_t thread, std::size_t reg) const { return registers_[thread][reg]; }

 private:
  using Atomic = typename P::template Atomic<std::uint64_t>;
  using Plain = typename P::template Shared<std::uint64_t>;
  using LockNode = typename AnySpinlock<P>::Node;
  using Word = typename P::template Atomic<std::uint32_t>;
  using Ledger = FutexLedger<P>;
  using Mutex = usync::AnyMutex<P, Ledger>;
  using Condvar = usync::AnyCondvar<P, Ledger>;
  using Deadline = futex::FutexDeadline<P>;
  static constexpr std::size_t kNobody = ~std::size_t{0};
  using Registers = std::span<std::int64_t>;
  struct Cell {
    Atomic* atomic = nullptr;
    Plain* plain = nullptr;
    Word* word = nullptr;  // a futex word
  };

  void make_spinlocks() {
    const program::Program& prog = *program_;
    for (const std::string& name : prog.locks) {
      locks_.push_back(make_on<P, AnySpinlock<P>>(0, kCacheLineBytes, prog.lock_kind));
      P::label(locks_.back(), sizeof(AnySpinlock<P>), name);
    }
    for (const program::ThreadProgram& t : prog.threads) {
      for (const std::string& lock : prog.locks) {
        nodes_.push_back(make_on<P, LockNode>(P::node_of(t.cpu), kCacheLineBytes));
        P::label(nodes_.back(), sizeof(LockNode), fmt::format("{}.{}", lock, t.name));
      }
    }
  }

  // Each mutex is its futex word, labeled with the lock's name, on a line of its own.
  void make_mutexes(usync::MutexKind kind) {
    for (const std::string& name : program_->locks) {
      mutexes_.push_back(make_on<P, Mutex>(0, kCacheLineBytes, kind, *futexes_));
      P::label(&mutexes_.back()->word(), sizeof(Word), name);
    }
  }

  // Each condvar waits with the lock its cond_wait ops name (the loader checked there is one);
  // a condvar nobody waits on takes the first lock.
  void make_condvars() {
    const program::Program& prog = *program_;
    for (std::size_t c = 0; c < prog.condvars.size(); ++c) {
      const int lock = prog.condvar_lock[c] >= 0 ? prog.condvar_lock[c] : 0;
      condvars_.push_back(make_on<P, Condvar>(0, kCacheLineBytes, prog.condvar_kind, *futexes_,
                                              *mutexes_[static_cast<std::size_t>(lock)]));
      condvars_.back()->label(prog.condvars[c]);
    }
  }

  void release() {
    for (Condvar* c : condvars_) destroy_on<P>(c);
    condvars_.clear();
    for (Cell& c : cells_) {
      if (c.atomic != nullptr) destroy_on<P>(c.atomic);
      if (c.plain != nullptr) destroy_on<P>(c.plain);
      if (c.word != nullptr) destroy_on<P>(c.word);
    }
    for (Mutex* m : mutexes_) destroy_on<P>(m);
    mutexes_.clear();
    for (Word*& w : lives_) {
      if (w != nullptr) destroy_on<P>(w);
      w = nullptr;
    }
    for (Deadline*& d : deadlines_) {
      if (d != nullptr) destroy_on<P>(d);
      d = nullptr;
    }
    futexes_.reset();
    for (AnySpinlock<P>* l : locks_) destroy_on<P>(l);
    for (LockNode* n : nodes_) destroy_on<P>(n);
    cells_.clear();
    locks_.clear();
    nodes_.clear();
  }

  std::uint64_t load(std::size_t var, std::memory_order order = std::memory_order_seq_cst) const {
    const Cell& c = cells_[var];
    if (c.plain != nullptr) return c.plain->load();
    return program::with_load_order(
        order, [&c](auto o) -> std::uint64_t { return c.word != nullptr ? c.word->load(o) : c.atomic->load(o); });
  }

  void run(const std::vector<program::Op>& block, Registers& regs) {
    for (const program::Op& op : block) step(op, regs);
  }

  std::int64_t eval(const program::Expr& e, const Registers& regs) const {
    return program::evaluate(e,
                             [&regs](const program::ExprNode& n) { return regs[static_cast<std::size_t>(n.index)]; });
  }

  static void assign(Registers& regs, int reg, std::uint64_t value) {
    if (reg >= 0) regs[static_cast<std::size_t>(reg)] = static_cast<std::int64_t>(value);
  }

  void step(const program::Op& op, Registers& regs) {
    using program::OpKind;
    if (mortal_) [[unlikely]]
      maybe_die(op, regs);
    switch (op.kind) {
      case OpKind::load:
        assign(regs, op.reg, load(static_cast<std::size_t>(op.var), op.order));
        return;
      case OpKind::store:
        store(op, static_cast<std::uint64_t>(eval(op.value, regs)));
        return;
      case OpKind::rmw:
        assign(regs, op.reg, rmw(op, regs));
        return;
      case OpKind::fence:
        program::with_order(op.order, [](auto o) { P::fence(o); });
        return;
      case OpKind::pause:
        P::cpu_relax();
        return;
      case OpKind::set:
        assign(regs, op.reg, static_cast<std::uint64_t>(eval(op.value, regs)));
        return;
      case OpKind::if_:
        run(eval(op.cond, regs) != 0 ? op.body : op.else_body, regs);
        return;
      case OpKind::loop:
        for (std::uint64_t i = 0; i < op.count; ++i) run(op.body, regs);
        return;
      case OpKind::while_:
        run_while(op, regs);
        return;
      case OpKind::assert_:
        if (eval(op.cond, regs) == 0)
          P::violation(property::assertion,
                       fmt::format("{}: assert '{}' failed ({})", op.where, op.cond.text, show(regs, op)));
        return;
      case OpKind::lock:
      case OpKind::unlock:
        lock_op(op, regs);
        return;
      case OpKind::futex_wait:
      case OpKind::futex_wake:
      case OpKind::futex_requeue:
        futex_op(op, regs);
        return;
      case OpKind::cond_wait:
      case OpKind::cond_signal:
      case OpKind::cond_broadcast:
        condvar_op(op, regs);
        return;
    }
  }

  // The ledger hears of each op before and after it (CondvarLedger); holder_ says which thread
  // holds each mutex, so that a signal is known to be issued under one.
  void condvar_op(const program::Op& op, const Registers& regs) {
    const std::size_t t = thread_of(regs);
    futexes_->at(t, &op.where);
    Condvar& cv = *condvars_[static_cast<std::size_t>(op.condvar)];
    if (op.kind == program::OpKind::cond_wait) {
      const auto l = static_cast<std::size_t>(op.lock);
      const std::size_t w = condvar_ledger_.wait_begins(t, op.condvar, op.lock, &op.where);
      holder_[l].store(kNobody, std::memory_order_relaxed);
      cv.wait(*mutexes_[l], static_cast<std::uint32_t>(t + 1));  // thread ids from 1, as tids are nonzero
      holder_[l].store(t, std::memory_order_relaxed);
      condvar_ledger_.wait_ended(w);
      return;
    }
    std::optional<int> under;
    const int lock = program_->condvar_lock[static_cast<std::size_t>(op.condvar)];
    if (lock >= 0 && holder_[static_cast<std::size_t>(lock)].load(std::memory_order_relaxed) == t) under = lock;
    const bool broadcast = op.kind == program::OpKind::cond_broadcast;
    const std::size_t s = condvar_ledger_.signal_begins(t, op.condvar, broadcast, under, &op.where);
    broadcast ? cv.broadcast() : cv.signal();
    condvar_ledger_.signal_ended(s);
  }

  // A futex mutex is locked with the thread's id, numbered from 1 (a robust mutex stores it);
  // a lock whose previous owner died (EOWNERDEAD) is taken to be made consistent at once.
  void lock_op(const program::Op& op, const Registers& regs) {
    const auto l = static_cast<std::size_t>(op.lock);
    const bool lock = op.kind == program::OpKind::lock;
    if (mutexes_.empty()) {
      lock ? locks_[l]->lock(lock_node(regs, op.lock)) : locks_[l]->unlock(lock_node(regs, op.lock));
      return;
    }
    const std::size_t t = thread_of(regs);
    futexes_->at(t, &op.where);
    const auto tid = static_cast<std::uint32_t>(t + 1);
    if (lock) {
      locking_[t].store(op.lock, std::memory_order_relaxed);
      mutexes_[l]->lock(tid);
      locking_[t].store(-1, std::memory_order_relaxed);
      holder_[l].store(t, std::memory_order_relaxed);
    } else {
      holder_[l].store(kNobody, std::memory_order_relaxed);
      mutexes_[l]->unlock(tid);
    }
  }

  // --- threads that die (may_die) and every thread's exit

  struct Died {};  // thrown to end a mortal thread's program where it dies; never escapes it

  // What the companions act on, on the thread's node: a mortal thread's `alive` word (its
  // kill zeroes it) and a timed waiter's deadline (its timer passes it); null where none.
  void make_companion_state() {
    const program::Program& prog = *program_;
    lives_.assign(prog.threads.size(), nullptr);
    deadlines_.assign(prog.threads.size(), nullptr);
    for (std::size_t i = 0; i < prog.threads.size(); ++i) {
      const program::ThreadProgram& t = prog.threads[i];
      if (t.may_die) {
        mortal_ = true;
        lives_[i] = make_on<P, Word>(P::node_of(t.cpu), kCacheLineBytes, 1U);
        P::label(lives_[i], sizeof(Word), fmt::format("{}.alive", t.name));
      }
      if (t.timed_waits) {
        deadlines_[i] = make_on<P, Deadline>(P::node_of(t.cpu), kCacheLineBytes);
        P::label(&deadlines_[i]->word(), sizeof(Word), fmt::format("{}.deadline_passed", t.name));
      }
    }
  }

  // Before an op that touches shared state: a mortal thread whose kill step has run dies here.
  void maybe_die(const program::Op& op, const Registers& regs) {
    if (!program::touches_shared(op.kind)) return;
    Word* life = lives_[thread_of(regs)];
    if (life != nullptr && life->load(std::memory_order_seq_cst) == 0) throw Died{};
  }

  // The kernel's exit path, for a thread that died or finished: its robust list.
  void exit_thread(std::size_t t) {
    if (mutexes_.empty() || !usync::is_robust(*program_->mutex)) return;  // mutexes_: program_->mutex is set
    futexes_->at(t, &kExitWhere);
    for (Mutex* m : mutexes_) usync::handle_futex_death<P>(m->word(), static_cast<std::uint32_t>(t + 1), *futexes_);
  }

  // A thread asleep in lock() of a futex mutex that no thread holds: whatever freed it woke
  // nobody who took it. (A lock held by a thread that died stays held: a deadlock.)
  std::optional<program::Finding> asleep_on_free_mutex(const std::function<bool(typename P::Thread)>& sleeping) const {
    for (std::size_t t = 0; t < locking_.size(); ++t) {
      const int l = locking_[t].load(std::memory_order_relaxed);
      if (l < 0 || !sleeping(futexes_->thread(t))) continue;
      if (holder_[static_cast<std::size_t>(l)].load(std::memory_order_relaxed) != kNobody) continue;
      const auto& threads = program_->threads;
      const std::string& lock = program_->locks[static_cast<std::size_t>(l)];
      return program::Finding{
          "lost_wakeup",
          fmt::format("thread '{}' sleeps in lock({}) (op at {}) but no thread holds {} (its word holds {:#x}): the "
                      "unlock or the death that freed it woke nobody who took it",
                      threads[t].name, lock, *futexes_->where(t), lock,
                      mutexes_[static_cast<std::size_t>(l)]->word().load(std::memory_order_relaxed))};
    }
    return std::nullopt;
  }

  void futex_op(const program::Op& op, Registers& regs) {
    using program::OpKind;
    futexes_->at(thread_of(regs), &op.where);
    Word& word = *cells_[static_cast<std::size_t>(op.var)].word;
    const auto count = [&](const program::Expr& e) {
      return static_cast<int>(std::clamp<std::int64_t>(eval(e, regs), 0, 0x7fffffff));
    };
    if (op.kind == OpKind::futex_wait) {
      Deadline* deadline = op.timed ? deadlines_[thread_of(regs)] : nullptr;
      const futex::FutexError r = futexes_->wait(word, static_cast<std::uint32_t>(eval(op.amount, regs)), deadline);
      const std::int64_t result = r == futex::FutexError::ok       ? program::kFutexWoken
                                  : r == futex::FutexError::eagain ? program::kFutexEagain
                                                                   : program::kFutexTimedout;
      assign(regs, op.reg, static_cast<std::uint64_t>(result));
    } else if (op.kind == OpKind::futex_wake) {
      assign(regs, op.reg, static_cast<std::uint64_t>(futexes_->wake(word, count(op.amount)).woken));
    } else {
      Word& to = *cells_[static_cast<std::size_t>(op.var2)].word;
      std::optional<std::uint32_t> expected;
      if (!op.expected.empty()) expected = static_cast<std::uint32_t>(eval(op.expected, regs));
      const futex::RequeueResult r = futexes_->requeue(word, to, count(op.amount), count(op.amount2), expected);
      const std::int64_t moved = r.error == futex::FutexError::ok ? r.woken + r.requeued : -program::kFutexEagain;
      assign(regs, op.reg, static_cast<std::uint64_t>(moved));
    }
  }

  void store(const program::Op& op, std::uint64_t value) {
    Cell& c = cells_[static_cast<std::size_t>(op.var)];
    if (c.word != nullptr) {
      program::with_store_order(op.order, [&](auto o) { c.word->store(static_cast<std::uint32_t>(value), o); });
    } else if (c.atomic != nullptr) {
      program::with_store_order(op.order, [&](auto o) { c.atomic->store(value, o); });
    } else {
      c.plain->store(value);
    }
  }

  std::uint64_t rmw(const program::Op& op, const Registers& regs) {
    const Cell& c = cells_[static_cast<std::size_t>(op.var)];
    return c.word != nullptr ? rmw_on(*c.word, op, regs) : rmw_on(*c.atomic, op, regs);
  }

  template <class A>
  std::uint64_t rmw_on(A& a, const program::Op& op, const Registers& regs) {
    return program::with_order(op.order, [&](auto order) { return rmw_ordered(a, op, regs, order); });
  }

  template <class A, class Order>
  std::uint64_t rmw_ordered(A& a, const program::Op& op, const Registers& regs, Order order) {
    using T = decltype(a.load());
    const auto operand = static_cast<T>(eval(op.value, regs));
    switch (op.rmw) {
      case RmwOp::exchange:
        return a.exchange(operand, order);
      case RmwOp::fetch_add:
        return a.fetch_add(operand, order);
      case RmwOp::fetch_sub:
        return a.fetch_sub(operand, order);
      case RmwOp::fetch_or:
        return a.fetch_or(operand, order);
      case RmwOp::fetch_and:
        return a.fetch_and(operand, order);
      case RmwOp::compare_exchange: {
        // The destination register receives the value found, as with C11's `expected`.
        auto expected = static_cast<T>(eval(op.expected, regs));
        a.compare_exchange_strong(expected, operand, order);
        return expected;
      }
    }
    return 0;
  }

  void run_while(const program::Op& op, Registers& regs) {
    for (std::uint64_t i = 0;; ++i) {
      if (eval(op.cond, regs) == 0) return;
      if (i == op.count) {
        P::violation(property::bound_exceeded,
                     fmt::format("{}: loop ran past its bound of {} iterations", op.where, op.count));
        return;
      }
      run(op.body, regs);
    }
  }

  std::string show(const Registers& regs, const program::Op&) const {
    std::string out;
    const auto& names = program_->threads[thread_of(regs)].registers;
    for (std::size_t i = 0; i < names.size(); ++i) out += fmt::format("{}{}={}", i == 0 ? "" : " ", names[i], regs[i]);
    return out;
  }

  std::size_t thread_of(const Registers& regs) const { return static_cast<std::size_t>(&regs - registers_.data()); }

  // The calling thread's node for `lock`; nodes are laid out thread by thread.
  LockNode& lock_node(const Registers& regs, int lock) const {
    return *nodes_[thread_of(regs) * locks_.size() + static_cast<std::size_t>(lock)];
  }

  bool holds(const program::FinalCondition& c) const {
    return program::evaluate(c.expr, [this](const program::ExprNode& n) { return final_leaf(n); }) != 0;
  }

  // The futex word's variable or lock name.
  std::string word_name(const Word* word) const {
    for (std::size_t v = 0; v < cells_.size(); ++v)
      if (cells_[v].word == word) return program_->variables[v].name;
    for (std::size_t l = 0; l < mutexes_.size(); ++l)
      if (&mutexes_[l]->word() == word) return program_->locks[l];
    return "?";
  }

  std::string describe(const typename Ledger::LostWakeup& lost) const {
    const std::string word = word_name(lost.word);
    const auto& threads = program_->threads;
    const auto where = [](const std::string* w) { return w != nullptr ? *w : std::string("?"); };
    const std::string requested = lost.requested == INT_MAX ? std::string("all") : std::to_string(lost.requested);
    return fmt::format(
        "thread '{}' sleeps in a futex wait on {} for the value {} (op at {}), but {} holds {}; the "
        "futex wake of {} by thread '{}' (op at {}) asked to wake {} and woke {}",
        threads[lost.sleeper].name, word, lost.expected, where(lost.wait_where), word,
        lost.word->load(std::memory_order_relaxed), word, threads[lost.waker].name, where(lost.wake_where), requested,
        lost.woken);
  }

  std::string describe(const CondvarLedger::Lost& lost) const {
    const auto& threads = program_->threads;
    const CondvarLedger::Signal& s = *lost.signal;
    const std::string& cv = program_->condvars[static_cast<std::size_t>(s.condvar)];
    std::string blocked;
    for (const CondvarLedger::Wait* w : lost.blocked)
      blocked += fmt::format("{}'{}' (op at {}{})", blocked.empty() ? "" : ", ", threads[w->thread].name, *w->where,
                             w->ended ? "" : ", still waiting");
    if (s.broadcast)
      return fmt::format(
          "cond_broadcast({}) by thread '{}' (op at {}) left a thread blocked that was waiting when it "
          "was called: {}",
          cv, threads[s.thread].name, *s.where, blocked);
    return fmt::format(
        "cond_signal({}) by thread '{}' (op at {}) unblocked none of the threads blocked in cond_wait({}) when it was "
        "called: {}; each stayed blocked or was unblocked by another signal",
        cv, threads[s.thread].name, *s.where, cv, blocked);
  }

  std::int64_t final_leaf(const program::ExprNode& n) const {
    if (n.op == program::ExprOp::var) return static_cast<std::int64_t>(load(static_cast<std::size_t>(n.index)));
    return registers_[static_cast<std::size_t>(n.thread)][static_cast<std::size_t>(n.index)];
  }

  std::string final_state() const {
    std::string out;
    for (std::size_t v = 0; v < cells_.size(); ++v)
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", program_->variables[v].name, load(v));
    for (std::size_t t = 0; t < registers_.size(); ++t)
      for (std::size_t r = 0; r < registers_[t].size(); ++r)
        out += fmt::format(" {}.{}={}", program_->threads[t].name, program_->threads[t].registers[r], registers_[t][r]);
    return out;
  }

  std::shared_ptr<const program::Program> program_;
  // A fresh workload is built for every simulated execution: room for small programs inline,
  // so that building one allocates nothing (its vectors were 6 of the 8 heap blocks an
  // execution of fib_bench allocated).
  boost::container::small_vector<Cell, 8> cells_;
  std::vector<AnySpinlock<P>*> locks_;
  std::vector<LockNode*> nodes_;  // [thread * locks + lock]
  std::vector<Mutex*> mutexes_;   // design.mutex: one per lock, instead of locks_
  std::vector<Condvar*> condvars_;
  // Per lock, the thread that holds it (condvars judge signals by it); host atomics, as only
  // the holder writes its own number there and only it asks whether it is there.
  std::vector<std::atomic<std::size_t>> holder_;
  // Per thread, the lock it is inside lock() of (-1: none); the ledger knows that op.
  std::vector<std::atomic<int>> locking_;
  // Per thread, its `alive` word when it may die (else null); any such thread at all.
  std::vector<Word*> lives_;
  bool mortal_ = false;
  // Per thread, the deadline of its timed futex waits (else null).
  std::vector<Deadline*> deadlines_;
  inline static const std::string kExitWhere = "thread exit (the kernel walks its robust list)";
  CondvarLedger condvar_ledger_;
  std::optional<Ledger> futexes_;
  // Every thread's registers, thread after thread, and each thread's view of its own (the
  // interpreter finds a thread by its view's place in registers_, thread_of).
  boost::container::small_vector<std::int64_t, 16> register_file_;
  boost::container::small_vector<Registers, 4> registers_;
};

}  // namespace lockstep
