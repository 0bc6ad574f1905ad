// Thread programs in the scenario op language (docs/scenarios.md, "threads"): the parsed
// form, independent of the platform. cli/ builds it from YAML; ProgramWorkload<P> runs it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/futex/futex_config.hpp"
#include "core/platform.hpp"
#include "core/sync/spinlock.hpp"
#include "core/usync/any_condvar.hpp"
#include "core/usync/any_mutex.hpp"

namespace lockstep::program {

// Expressions are kept in reverse Polish order: evaluation is a loop over a small stack.
enum class ExprOp : std::uint8_t {
  constant,
  reg,         // a register of the running thread (index)
  var,         // a variable's final value (final conditions only)
  thread_reg,  // thread.register (final conditions only)
  neg,
  lnot,
  bnot,
  add,
  sub,
  mul,
  div,
  mod,
  band,
  bor,
  bxor,
  shl,
  shr,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  land,
  lor,
};

struct ExprNode {
  ExprOp op = ExprOp::constant;
  std::int64_t value = 0;
  int index = -1;
  int thread = -1;
};

struct Expr {
  std::vector<ExprNode> code;
  std::string text;  // as written, for messages
  bool empty() const { return code.empty(); }
};

enum class OpKind : std::uint8_t {
  load,
  store,
  rmw,
  fence,
  pause,
  set,
  if_,
  loop,
  while_,
  assert_,
  lock,
  unlock,
  futex_wait,
  futex_wake,
  futex_requeue,
  cond_wait,
  cond_signal,
  cond_broadcast,
};

// Whether an op reads or writes shared state (a step of the thread), rather than only its own
// registers and control flow; a thread that may die dies before such an op.
constexpr bool touches_shared(OpKind kind) {
  return kind != OpKind::set && kind != OpKind::if_ && kind != OpKind::loop && kind != OpKind::while_ &&
         kind != OpKind::assert_;
}

// What futex_wait leaves in its register, as futex(2) returns: 0 when woken, EAGAIN when
// the word did not hold the expected value, ETIMEDOUT when a timed wait's deadline passed.
inline constexpr std::int64_t kFutexWoken = 0;
inline constexpr std::int64_t kFutexEagain = 11;
inline constexpr std::int64_t kFutexTimedout = 110;  // ETIMEDOUT on Linux

struct Op {
  OpKind kind = OpKind::fence;
  std::string where;  // "file:line:col" of the op, for messages
  int var = -1;       // load, store, rmw; the futex word of futex ops
  int var2 = -1;      // futex_requeue: the word waiters move to
  int reg = -1;       // destination register: load, rmw, set (-1: none)
  int lock = -1;      // lock, unlock; cond_wait: the mutex it waits with
  int condvar = -1;   // cond_wait, cond_signal, cond_broadcast
  RmwOp rmw = RmwOp::fetch_add;
  std::memory_order order = std::memory_order_seq_cst;
  Expr value;                 // store, rmw operand, set
  Expr expected;              // cas; futex_requeue's compare value (empty: FUTEX_REQUEUE, no compare)
  Expr amount;                // futex_wake, futex_requeue: how many to wake; futex_wait: the expected value
  Expr amount2;               // futex_requeue: how many to move
  Expr cond;                  // if, while, assert
  std::uint64_t count = 0;    // loop: times; while: most iterations
  bool timed = false;         // futex_wait: it times out once the thread's deadline passes
  std::vector<Op> body;       // if (then), loop, while
  std::vector<Op> else_body;  // if
};

struct Variable {
  std::string name;
  std::uint64_t init = 0;
  bool atomic = true;  // plain variables are P::Shared: load and store only
  bool futex = false;  // a 32-bit atomic word, as futex(2) takes
  NodeId node = 0;
  std::uint64_t align = 8;
};

struct ThreadProgram {
  std::string name;
  CpuId cpu = 0;
  // The thread may die before any op of its program that touches shared state (docs/scenarios.md,
  // "Threads that die"): when it does is the scheduling oracle's choice.
  bool may_die = false;
  std::string where;  // "file:line:col" of the thread's entry, for messages
  // Some futex_wait of the thread has a timeout: the thread has a deadline, which passes when
  // the scheduling oracle says (docs/scenarios.md, futex_wait's `timeout`).
  bool timed_waits = false;
  std::vector<std::string> registers;
  std::vector<Op> body;
};

// A final-state condition: herd's `forall` (must hold at the end of every execution) or
// `exists` (an outcome some execution should reach; one that does is a witness).
struct FinalCondition {
  std::string property;
  Expr expr;
  std::string where;
};

struct Program {
  std::vector<Variable> variables;
  std::vector<std::string> locks;
  SpinlockKind lock_kind = SpinlockKind::ticket;
  // `design: {mutex: KIND}`: the locks are futex mutexes of this kind instead of spinlocks,
  // on the program's futex table.
  std::optional<usync::MutexKind> mutex;
  // Condition variables (`condvars:`), of the design's kind (`design: {condvar: KIND}`), over
  // the futex mutexes; condvar_lock[c] is the lock condvar c's waits use (one per condvar).
  std::vector<std::string> condvars;
  usync::CondvarKind condvar_kind = usync::CondvarKind::sequence;
  std::vector<int> condvar_lock;
  futex::FutexConfig futex;  // the table futex ops go through (the design's, or the default)
  bool uses_futex = false;
  std::vector<ThreadProgram> threads;
  std::vector<FinalCondition> forall;
  std::vector<FinalCondition> exists;
  bool uses_futex_table() const { return uses_futex || (mutex && !locks.empty()) || !condvars.empty(); }
};

// Something a program's run found, by property: a witness of an `exists` condition, or why
// the threads are stuck.
struct Finding {
  std::string property;
  std::string message;
};

}  // namespace lockstep::program
