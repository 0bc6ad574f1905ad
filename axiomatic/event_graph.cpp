#include "axiomatic/event_graph.hpp"

#include <fmt/format.h>

namespace lockstep::axiomatic {

using program::ExprOp;
using program::Op;
using program::OpKind;

namespace {

z3::expr as_bool(const z3::expr& v) { return v != v.ctx().bv_val(0, 64); }
z3::expr as_bv(const z3::expr& b) { return z3::ite(b, b.ctx().bv_val(1, 64), b.ctx().bv_val(0, 64)); }

// A variable's width: futex words are 32-bit (what futex(2) takes), the rest 64-bit.
z3::expr truncate(const program::Variable& v, const z3::expr& value) {
  if (!v.futex) return value;
  return z3::zext(value.extract(31, 0), 32);
}

// One thread, executed symbolically: registers are expressions, `path` the condition of
// the current point, `alive` whether the thread has not stopped at a failed check.
class ThreadEncoder {
 public:
  ThreadEncoder(z3::context& ctx, const program::Program& prog, int thread, unsigned unroll, EventGraph& g)
      : ctx_(ctx),
        prog_(prog),
        thread_(thread),
        unroll_(unroll),
        g_(g),
        path_(ctx.bool_val(true)),
        alive_(ctx.bool_val(true)) {
    for (std::size_t i = 0; i < prog.threads[static_cast<std::size_t>(thread)].registers.size(); ++i)
      regs_.push_back(ctx.bv_val(0, 64));
  }

  void run() {
    block(prog_.threads[static_cast<std::size_t>(thread_)].body);
    g_.final_registers.push_back(regs_);
  }

 private:
  z3::expr guard() const { return path_ && alive_; }

  z3::expr eval(const program::Expr& e, const std::string& where) {
    return encode_expr(
        ctx_, e, [this](const program::ExprNode& n) { return regs_.at(static_cast<std::size_t>(n.index)); }, guard(),
        &g_.divisions, where);
  }

  void assign(int reg, const z3::expr& value) {
    if (reg < 0) return;
    auto& r = regs_[static_cast<std::size_t>(reg)];
    r = z3::ite(guard(), value, r);
  }

  Event& add(EventKind kind, const Op& op) {
    if (g_.events.size() >= kMaxEvents)
      throw UnsupportedOp(op.where, fmt::format("the program unrolls to more than {} events", kMaxEvents));
    Event e(ctx_);
    e.kind = kind;
    e.thread = thread_;
    e.var = op.var;
    e.guard = guard();
    e.where = op.where;
    g_.thread_events[static_cast<std::size_t>(thread_)].push_back(static_cast<int>(g_.events.size()));
    g_.events.push_back(e);
    return g_.events.back();
  }

  z3::expr fresh_read(const Op& op) {
    return ctx_.bv_const(fmt::format("t{}.read{}@{}", thread_, reads_++, op.where).c_str(), 64);
  }

  void block(const std::vector<Op>& ops) {
    for (const Op& op : ops) step(op);
  }

  void step(const Op& op) {
    switch (op.kind) {
      case OpKind::load: {
        Event& e = add(EventKind::load, op);
        e.read = fresh_read(op);
        assign(op.reg, e.read);
        return;
      }
      case OpKind::store: {
        const program::Variable& v = prog_.variables[static_cast<std::size_t>(op.var)];
        const z3::expr value = truncate(v, eval(op.value, op.where));
        Event& e = add(EventKind::store, op);
        e.written = value;
        e.writes = e.guard;
        // x86 compiles a seq_cst store of an atomic to xchg: locked, never buffered.
        e.locked = v.atomic && op.order == std::memory_order_seq_cst;
        return;
      }
      case OpKind::rmw:
        rmw(op);
        return;
      case OpKind::fence: {
        Event& e = add(EventKind::fence, op);
        e.mfence = op.order == std::memory_order_seq_cst;
        return;
      }
      case OpKind::set:
        assign(op.reg, eval(op.value, op.where));
        return;
      case OpKind::if_:
        branch(op);
        return;
      case OpKind::loop:
        for (std::uint64_t i = 0; i < op.count; ++i) block(op.body);
        return;
      case OpKind::while_:
        loop_while(op);
        return;
      case OpKind::assert_:
        check("assertion", op.where, op.cond.text, !as_bool(eval(op.cond, op.where)));
        return;
      default:
        throw *unsupported_op(std::vector<Op>{op});
    }
  }

  void rmw(const Op& op) {
    const program::Variable& v = prog_.variables[static_cast<std::size_t>(op.var)];
    const z3::expr operand = truncate(v, eval(op.value, op.where));
    const z3::expr expected =
        op.rmw == RmwOp::compare_exchange ? truncate(v, eval(op.expected, op.where)) : ctx_.bv_val(0, 64);
    Event& e = add(EventKind::rmw, op);
    e.locked = true;  // a locked instruction, failed cas included
    e.read = fresh_read(op);
    const z3::expr& old = e.read;
    switch (op.rmw) {
      case RmwOp::exchange:
        e.written = operand;
        break;
      case RmwOp::fetch_add:
        e.written = truncate(v, old + operand);
        break;
      case RmwOp::fetch_sub:
        e.written = truncate(v, old - operand);
        break;
      case RmwOp::fetch_or:
        e.written = old | operand;
        break;
      case RmwOp::fetch_and:
        e.written = old & operand;
        break;
      case RmwOp::compare_exchange:
        e.written = operand;
        break;
    }
    e.writes = op.rmw == RmwOp::compare_exchange ? e.guard && old == expected : e.guard;
    assign(op.reg, old);  // cas: the value found, as C11's `expected`
  }

  void branch(const Op& op) {
    const z3::expr c = as_bool(eval(op.cond, op.where));
    const z3::expr path = path_;
    const std::vector<z3::expr> before = regs_;
    const z3::expr alive_before = alive_;
    path_ = path && c;
    block(op.body);
    const std::vector<z3::expr> then_regs = regs_;
    const z3::expr then_alive = alive_;
    regs_ = before;
    alive_ = alive_before;
    path_ = path && !c;
    block(op.else_body);
    for (std::size_t i = 0; i < regs_.size(); ++i) regs_[i] = z3::ite(c, then_regs[i], regs_[i]);
    alive_ = z3::ite(c, then_alive, alive_);
    path_ = path;
  }

  // while (cond) body, at most op.count iterations (the engine's bound: past it the thread
  // stops with bound_exceeded). Unrolled min(count, unroll) times; a path that would need
  // more iterations than the unrolling is cut.
  void loop_while(const Op& op) {
    const std::uint64_t limit = unroll_ == 0 ? op.count : std::min<std::uint64_t>(op.count, unroll_);
    const z3::expr path = path_;
    z3::expr running = ctx_.bool_val(true);
    for (std::uint64_t i = 0; i < limit; ++i) {
      const z3::expr c = as_bool(eval(op.cond, op.where));
      running = running && c;
      const std::vector<z3::expr> before = regs_;
      const z3::expr alive_before = alive_;
      path_ = path && running;
      block(op.body);
      for (std::size_t r = 0; r < regs_.size(); ++r) regs_[r] = z3::ite(running, regs_[r], before[r]);
      alive_ = z3::ite(running, alive_, alive_before);
    }
    path_ = path && running;
    const z3::expr more = guard() && as_bool(eval(op.cond, op.where));
    path_ = path;
    if (limit == op.count) {
      // The engine's bound: one more iteration is a violation, and the thread stops.
      check("bound_exceeded", op.where, fmt::format("loop ran past its bound of {} iterations", op.count), more);
    } else {
      g_.cut.push_back(more);
      g_.complete = false;
    }
  }

  void check(const std::string& property, const std::string& where, const std::string& text, const z3::expr& failed) {
    ThreadCheck c{property, where, text, thread_, guard() && failed};
    g_.checks.push_back(c);
    alive_ = alive_ && !c.fails;
  }

  z3::context& ctx_;
  const program::Program& prog_;
  int thread_;
  unsigned unroll_;
  EventGraph& g_;
  z3::expr path_;
  z3::expr alive_;
  std::vector<z3::expr> regs_;
  unsigned reads_ = 0;
};

}  // namespace

EventGraph build_event_graph(z3::context& ctx, const program::Program& prog, unsigned unroll) {
  if (auto u = unsupported_op(prog)) throw *u;
  EventGraph g;
  g.unroll = unroll;
  for (std::size_t v = 0; v < prog.variables.size(); ++v) {
    Event e(ctx);
    e.kind = EventKind::init;
    e.var = static_cast<int>(v);
    e.guard = ctx.bool_val(true);
    e.writes = ctx.bool_val(true);
    e.written = truncate(prog.variables[v], ctx.bv_val(prog.variables[v].init, 64));
    e.where = "init";
    g.events.push_back(e);
  }
  g.thread_events.resize(prog.threads.size());
  for (std::size_t t = 0; t < prog.threads.size(); ++t) ThreadEncoder(ctx, prog, static_cast<int>(t), unroll, g).run();
  return g;
}

z3::expr encode_expr(z3::context& ctx, const program::Expr& e,
                     const std::function<z3::expr(const program::ExprNode&)>& leaf, const z3::expr& guard,
                     std::vector<DivisionCheck>* divisions, const std::string& where) {
  std::vector<z3::expr> stack;
  const z3::expr zero = ctx.bv_val(0, 64);
  for (const program::ExprNode& n : e.code) {
    switch (n.op) {
      case ExprOp::constant:
        stack.push_back(ctx.bv_val(static_cast<std::uint64_t>(n.value), 64));
        continue;
      case ExprOp::reg:
      case ExprOp::var:
      case ExprOp::thread_reg:
        stack.push_back(leaf(n));
        continue;
      case ExprOp::neg:
        stack.back() = -stack.back();
        continue;
      case ExprOp::lnot:
        stack.back() = as_bv(stack.back() == zero);
        continue;
      case ExprOp::bnot:
        stack.back() = ~stack.back();
        continue;
      default:
        break;
    }
    if (stack.size() < 2) throw std::logic_error("malformed expression '" + e.text + "'");
    const z3::expr b = stack.back();
    stack.pop_back();
    const z3::expr a = stack.back();
    const z3::expr sixty_three = ctx.bv_val(63, 64);
    switch (n.op) {
      case ExprOp::add:
        stack.back() = a + b;
        break;
      case ExprOp::sub:
        stack.back() = a - b;
        break;
      case ExprOp::mul:
        stack.back() = a * b;
        break;
      case ExprOp::div:
      case ExprOp::mod:
        // C's truncating division and remainder, which SMT-LIB's bvsdiv and bvsrem are
        // (INT64_MIN / -1 wraps in both). By zero the interpreter stops with an error.
        if (divisions != nullptr) divisions->push_back({where, e.text, guard && b == zero});
        stack.back() =
            n.op == ExprOp::div ? z3::to_expr(ctx, Z3_mk_bvsdiv(ctx, a, b)) : z3::to_expr(ctx, Z3_mk_bvsrem(ctx, a, b));
        break;
      case ExprOp::band:
        stack.back() = a & b;
        break;
      case ExprOp::bor:
        stack.back() = a | b;
        break;
      case ExprOp::bxor:
        stack.back() = a ^ b;
        break;
      case ExprOp::shl:
        stack.back() = z3::shl(a, b & sixty_three);
        break;
      case ExprOp::shr:
        stack.back() = z3::lshr(a, b & sixty_three);
        break;
      case ExprOp::eq:
        stack.back() = as_bv(a == b);
        break;
      case ExprOp::ne:
        stack.back() = as_bv(a != b);
        break;
      case ExprOp::lt:
        stack.back() = as_bv(a < b);
        break;  // signed, as z3's operators on bit-vectors are
      case ExprOp::le:
        stack.back() = as_bv(a <= b);
        break;
      case ExprOp::gt:
        stack.back() = as_bv(a > b);
        break;
      case ExprOp::ge:
        stack.back() = as_bv(a >= b);
        break;
      case ExprOp::land:
        stack.back() = as_bv(a != zero && b != zero);
        break;
      case ExprOp::lor:
        stack.back() = as_bv(a != zero || b != zero);
        break;
      default:
        throw std::logic_error("bad expression node");
    }
  }
  if (stack.size() != 1) throw std::logic_error("malformed expression '" + e.text + "'");
  return stack.front();
}

}  // namespace lockstep::axiomatic
