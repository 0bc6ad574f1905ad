// A thread program as events for an axiomatic memory model (docs/model-checking.md, "The
// SMT strategy"): each thread is executed symbolically once, with loops unrolled, and every
// load, store, read-modify-write and fence it may perform becomes an event guarded by the
// condition under which it runs. The values loads return are free variables; the memory
// model (memory_model.hpp) says which stores they may read from.
//
// This layer shares no code with the simulator or the explorer: it reads the parsed
// program (core/workloads/program.hpp) and nothing else, so that its verdicts are an
// independent check of theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <z3++.h>

#include "axiomatic/supported_ops.hpp"
#include "core/workloads/program.hpp"

namespace lockstep::axiomatic {

enum class EventKind : std::uint8_t {
  init,  // a variable's initial value: the first store in its coherence order
  load,
  store,
  rmw,  // one event that reads and (when it succeeds) writes, atomically
  fence,
};

struct Event {
  EventKind kind = EventKind::fence;
  int thread = -1;  // -1: init
  int var = -1;
  z3::expr guard;    // the event happens
  z3::expr read;     // load, rmw: the value read (64 bits)
  z3::expr written;  // store, rmw, init: the value written (64 bits, already truncated to the variable's width)
  z3::expr writes;   // the event writes: store and init as guard; rmw as guard and success (cas)
  // x86: a locked instruction (every read-modify-write, failed cas included) or a seq_cst
  // store (xchg). Ordered with everything before and after it in its thread, and never
  // buffered.
  bool locked = false;
  bool mfence = false;  // a seq_cst fence; other fences order nothing on x86
  std::string where;    // file:line:col
  explicit Event(z3::context& ctx)
      : guard(ctx.bool_val(false)), read(ctx.bv_val(0, 64)), written(ctx.bv_val(0, 64)), writes(ctx.bool_val(false)) {}
  bool reads_memory() const { return kind == EventKind::load || kind == EventKind::rmw; }
  bool may_write() const { return kind == EventKind::store || kind == EventKind::rmw || kind == EventKind::init; }
};

// A check a thread makes: an assert (`property` "assertion") or a `while` that would run
// past its bound ("bound_exceeded"). The thread stops there when it fails, as the engine's
// threads do; the others go on.
struct ThreadCheck {
  std::string property;
  std::string where;
  std::string text;  // the assert's condition, or the loop's bound
  int thread = -1;
  z3::expr fails;
};

// A division or remainder that may divide by zero: an error of the program.
struct DivisionCheck {
  std::string where;
  std::string text;
  z3::expr by_zero;
};

struct EventGraph {
  std::vector<Event> events;  // inits first (one per variable, in order), then each thread's in program order
  std::vector<std::vector<int>> thread_events;         // per thread: indices into events, program order
  std::vector<std::vector<z3::expr>> final_registers;  // per thread, per register
  std::vector<ThreadCheck> checks;
  std::vector<DivisionCheck> divisions;
  // Paths a `while` would take past the unrolling: excluded from every answer, which then
  // holds "within N iterations" (`complete` is false when some loop could run longer).
  std::vector<z3::expr> cut;
  bool complete = true;
  unsigned unroll = 0;  // the bound used (0: each while loop's own bound)
};

// The most events a program may unroll to; past it, the encoding refuses (a `loop` of a
// million iterations is not a litmus test).
inline constexpr std::size_t kMaxEvents = 20'000;

// `unroll`: the most iterations of a `while` loop to encode (0: each loop's own bound, so
// the encoding is exact). Throws UnsupportedOp for an op it cannot encode.
EventGraph build_event_graph(z3::context& ctx, const program::Program& prog, unsigned unroll);

// An expression of the op language as a 64-bit vector: `leaf` gives reg, var and
// thread_reg nodes. Comparisons and logic give 0 or 1, as the interpreter does. Divisions
// append their by-zero condition (under `guard`) to `divisions`.
z3::expr encode_expr(z3::context& ctx, const program::Expr& e,
                     const std::function<z3::expr(const program::ExprNode&)>& leaf, const z3::expr& guard,
                     std::vector<DivisionCheck>* divisions, const std::string& where);

}  // namespace lockstep::axiomatic
