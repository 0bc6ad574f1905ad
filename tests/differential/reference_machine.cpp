#include "tests/differential/reference_machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace lockstep::difftest {

namespace {

using program::ExprOp;
using program::OpKind;

// --- a thread's program, flattened: visible operations, thread-local ops and jumps -------

enum class Code : std::uint8_t { visible, set, assert_, jump_if_zero, jump };

struct Instr {
  Code code = Code::visible;
  const program::Op* op = nullptr;
  std::uint32_t target = 0;  // jumps
};

void flatten(const std::vector<program::Op>& block, std::vector<Instr>& out) {
  for (const program::Op& op : block) {
    switch (op.kind) {
      case OpKind::load:
      case OpKind::store:
      case OpKind::rmw:
      case OpKind::fence:
        out.push_back(Instr{Code::visible, &op});
        break;
      case OpKind::set:
        out.push_back(Instr{Code::set, &op});
        break;
      case OpKind::assert_:
        out.push_back(Instr{Code::assert_, &op});
        break;
      case OpKind::if_: {
        const std::size_t test = out.size();
        out.push_back(Instr{Code::jump_if_zero, &op});
        flatten(op.body, out);
        const std::size_t skip = out.size();
        out.push_back(Instr{Code::jump, &op});
        out[test].target = static_cast<std::uint32_t>(out.size());
        flatten(op.else_body, out);
        out[skip].target = static_cast<std::uint32_t>(out.size());
        break;
      }
      case OpKind::loop:  // unrolled: a loop of a fixed count is its body that many times
        if (op.count * op.body.size() > 10'000)
          throw std::invalid_argument(fmt::format("{}: loop too long for the reference enumerator", op.where));
        for (std::uint64_t k = 0; k < op.count; ++k) flatten(op.body, out);
        break;
      default:
        throw std::invalid_argument(fmt::format("{}: the reference enumerator does not model this op", op.where));
    }
  }
}

// Its own evaluator, for the expressions the generator writes (so that a bug in the
// engine's evaluator cannot hide in both).
std::int64_t eval(const program::Expr& e, const std::vector<std::int64_t>& regs) {
  std::vector<std::int64_t> st;
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  for (const program::ExprNode& n : e.code) {
    if (n.op == ExprOp::constant) {
      st.push_back(n.value);
      continue;
    }
    if (n.op == ExprOp::reg) {
      st.push_back(regs.at(static_cast<std::size_t>(n.index)));
      continue;
    }
    if (n.op == ExprOp::lnot) {
      st.back() = st.back() == 0 ? 1 : 0;
      continue;
    }
    if (st.size() < 2) throw std::invalid_argument("reference: malformed expression '" + e.text + "'");
    const std::int64_t b = st.back();
    st.pop_back();
    const std::int64_t a = st.back();
    std::int64_t r = 0;
    switch (n.op) {
      case ExprOp::add:
        r = static_cast<std::int64_t>(u(a) + u(b));
        break;
      case ExprOp::sub:
        r = static_cast<std::int64_t>(u(a) - u(b));
        break;
      case ExprOp::eq:
        r = a == b;
        break;
      case ExprOp::ne:
        r = a != b;
        break;
      case ExprOp::lt:
        r = a < b;
        break;
      case ExprOp::le:
        r = a <= b;
        break;
      case ExprOp::gt:
        r = a > b;
        break;
      case ExprOp::ge:
        r = a >= b;
        break;
      case ExprOp::land:
        r = a != 0 && b != 0;
        break;
      case ExprOp::lor:
        r = a != 0 || b != 0;
        break;
      default:
        throw std::invalid_argument("reference: unsupported operator in '" + e.text + "'");
    }
    st.back() = r;
  }
  if (st.size() != 1) throw std::invalid_argument("reference: malformed expression '" + e.text + "'");
  return st.front();
}

// --- the abstract machine's state ----------------------------------------------------------

constexpr std::uint32_t kNoWriter = ~std::uint32_t{0};

struct Buffered {
  std::uint32_t var = 0;
  std::uint64_t value = 0;
  std::uint32_t writer = kNoWriter;  // store id (class counting)
};

struct Thread {
  std::uint32_t pc = 0;
  bool started = false;
  bool done = false;
  std::uint32_t events = 0;  // visible operations performed: (thread, events) names a store
  std::vector<std::int64_t> regs;
  std::vector<Buffered> buffer;
  std::vector<std::uint32_t> read_from;  // class counting: each read's store, in order
  const std::string* failed = nullptr;   // the place of the assert it stopped at
};

struct State {
  std::vector<std::uint64_t> memory;
  std::vector<std::uint32_t> last_writer;      // class counting: per variable
  std::vector<std::vector<std::uint32_t>> co;  // class counting: per variable, writes in order
  std::vector<Thread> threads;
};

void put(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

std::string key_of(const State& s, bool classes) {
  std::string k;
  for (std::uint64_t v : s.memory) put(k, v);
  for (const Thread& t : s.threads) {
    put(k, t.pc | (std::uint64_t{t.started} << 32) | (std::uint64_t{t.done} << 33) |
               (std::uint64_t{t.failed != nullptr} << 34));
    for (std::int64_t r : t.regs) put(k, static_cast<std::uint64_t>(r));
    put(k, t.buffer.size());
    for (const Buffered& b : t.buffer) {
      put(k, b.var);
      put(k, b.value);
      if (classes) put(k, b.writer);
    }
    if (classes) {
      put(k, t.events);
      put(k, t.read_from.size());
      for (std::uint32_t w : t.read_from) put(k, w);
    }
  }
  if (classes) {
    for (std::uint32_t w : s.last_writer) put(k, w);
    for (const auto& c : s.co) {
      put(k, c.size());
      for (std::uint32_t w : c) put(k, w);
    }
  }
  return k;
}

// The part of a final state's key that names its class: reads-from and coherence order.
std::string class_of(const State& s) {
  std::string k;
  for (const Thread& t : s.threads) {
    put(k, t.read_from.size());
    for (std::uint32_t w : t.read_from) put(k, w);
  }
  for (const auto& c : s.co) {
    put(k, c.size());
    for (std::uint32_t w : c) put(k, w);
  }
  return k;
}

// What a state remembers of its history: nothing, or enough to tell its class.
enum class Classes : std::uint8_t { none, rf_co, dependence };

class Machine {
 public:
  Machine(const program::Program& p, Model model, Classes classes)
      : p_(p), model_(model), classes_(classes != Classes::none), dependence_(classes == Classes::dependence) {
    for (const program::ThreadProgram& t : p.threads) {
      code_.emplace_back();
      flatten(t.body, code_.back());
    }
  }

  State initial() const {
    State s;
    for (const program::Variable& v : p_.variables) {
      if (v.futex) throw std::invalid_argument("the reference enumerator does not model futex words");
      s.memory.push_back(v.init);
    }
    s.last_writer.assign(s.memory.size(), kNoWriter);
    s.co.resize(s.memory.size());
    for (const program::ThreadProgram& t : p_.threads) {
      Thread th;
      th.regs.assign(t.registers.size(), 0);
      s.threads.push_back(std::move(th));
    }
    return s;
  }

  bool tso() const { return model_ == Model::tso; }

  // Whether thread i can take a step now.
  bool enabled(const State& s, std::size_t i) const {
    const Thread& t = s.threads[i];
    if (t.done) return false;
    if (!t.started || t.buffer.empty() || !tso()) return true;
    return !needs_empty_buffer(*code_[i][t.pc].op);
  }

  bool needs_empty_buffer(const program::Op& op) const {
    switch (op.kind) {
      case OpKind::rmw:
        return true;
      case OpKind::fence:
        return op.order == std::memory_order_seq_cst;
      case OpKind::store:
        return op.order == std::memory_order_seq_cst && atomic(op.var);
      default:
        return false;
    }
  }

  bool atomic(int var) const { return p_.variables[static_cast<std::size_t>(var)].atomic; }

  void step(State& s, std::size_t i) const {
    Thread& t = s.threads[i];
    if (!t.started) {
      t.started = true;
      run_local(s, i);
      if (t.done) return;
    }
    perform(s, i, *code_[i][t.pc].op);
    ++t.pc;
    ++t.events;
    run_local(s, i);
  }

  void drain(State& s, std::size_t i) const {
    Thread& t = s.threads[i];
    const Buffered b = t.buffer.front();
    t.buffer.erase(t.buffer.begin());
    write(s, b.var, b.value, b.writer);
  }

  bool finished(const State& s) const {
    for (const Thread& t : s.threads)
      if (!t.done || !t.buffer.empty()) return false;
    return true;
  }

  std::string outcome(const State& s) const {
    std::vector<std::string> failed;
    for (const Thread& t : s.threads)
      if (t.failed != nullptr) failed.push_back(*t.failed);
    if (!failed.empty()) return assertions_text(failed);
    std::vector<std::vector<std::int64_t>> regs;
    for (const Thread& t : s.threads) regs.push_back(t.regs);
    return final_state_text(p_, s.memory, regs);
  }

  bool classes() const { return classes_; }

 private:
  std::uint32_t store_id(std::size_t thread, const Thread& t) const {
    return static_cast<std::uint32_t>(thread) << 16 | t.events;
  }

  void write(State& s, std::uint32_t var, std::uint64_t value, std::uint32_t writer) const {
    s.memory[var] = value;
    if (!classes_) return;
    s.last_writer[var] = writer;
    s.co[var].push_back(writer);
  }

  static void assign(Thread& t, int reg, std::uint64_t value) {
    if (reg >= 0) t.regs[static_cast<std::size_t>(reg)] = static_cast<std::int64_t>(value);
  }

  void perform(State& s, std::size_t i, const program::Op& op) const {
    Thread& t = s.threads[i];
    const auto var = static_cast<std::uint32_t>(op.var);
    switch (op.kind) {
      case OpKind::load: {
        std::uint64_t value = s.memory[var];
        std::uint32_t from = s.last_writer[var];
        if (tso()) {
          for (auto it = t.buffer.rbegin(); it != t.buffer.rend(); ++it) {
            if (it->var != var) continue;
            value = it->value;
            from = it->writer;  // the same store it reads from memory once drained
            break;
          }
        }
        if (classes_) t.read_from.push_back(from);
        assign(t, op.reg, value);
        return;
      }
      case OpKind::store: {
        const auto value = static_cast<std::uint64_t>(eval(op.value, t.regs));
        if (tso() && !needs_empty_buffer(op)) {
          t.buffer.push_back(Buffered{var, value, store_id(i, t)});
        } else {
          write(s, var, value, store_id(i, t));
        }
        return;
      }
      case OpKind::fence:
        return;
      case OpKind::rmw: {
        const std::uint64_t old = s.memory[var];
        const auto operand = static_cast<std::uint64_t>(eval(op.value, t.regs));
        std::uint64_t now = old;
        bool writes = true;
        switch (op.rmw) {
          case RmwOp::exchange:
            now = operand;
            break;
          case RmwOp::fetch_add:
            now = old + operand;
            break;
          case RmwOp::fetch_sub:
            now = old - operand;
            break;
          case RmwOp::fetch_or:
            now = old | operand;
            break;
          case RmwOp::fetch_and:
            now = old & operand;
            break;
          case RmwOp::compare_exchange:
            writes = old == static_cast<std::uint64_t>(eval(op.expected, t.regs));
            if (writes) now = operand;
            break;
        }
        if (classes_) t.read_from.push_back(s.last_writer[var]);
        // A successful read-modify-write is a write in coherence order even when it leaves
        // the value as it was (as GenMC counts); a failed compare-exchange only reads.
        if (dependence_ && now == old) writes = false;  // dfs: an unchanged value is only read
        if (writes) write(s, var, now, store_id(i, t));
        assign(t, op.reg, old);
        return;
      }
      default:
        throw std::logic_error("reference: not a visible operation");
    }
  }

  // Thread-local ops up to the next visible operation or the end.
  void run_local(State& s, std::size_t i) const {
    Thread& t = s.threads[i];
    const std::vector<Instr>& code = code_[i];
    while (t.pc < code.size()) {
      const Instr& in = code[t.pc];
      switch (in.code) {
        case Code::visible:
          return;
        case Code::set:
          assign(t, in.op->reg, static_cast<std::uint64_t>(eval(in.op->value, t.regs)));
          ++t.pc;
          break;
        case Code::assert_:
          if (eval(in.op->cond, t.regs) == 0) {  // the thread stops here; the others go on
            t.failed = &in.op->where;
            t.done = true;
            return;
          }
          ++t.pc;
          break;
        case Code::jump_if_zero:
          t.pc = eval(in.op->cond, t.regs) == 0 ? in.target : t.pc + 1;
          break;
        case Code::jump:
          t.pc = in.target;
          break;
      }
    }
    t.done = true;
  }

  const program::Program& p_;
  Model model_;
  bool classes_;
  bool dependence_;
  std::vector<std::vector<Instr>> code_;
};

struct Search {
  std::set<std::string> outcomes;
  std::unordered_set<std::string> classes;
  std::uint64_t states = 0;
  double paths = 0;
};

// Level by level: every transition is one event (a thread's step or a drain), so all paths
// to a state have the same length and a level's path counts are complete before the next.
// Returns false when the state cap was passed.
bool explore(const Machine& m, std::uint64_t cap, Search& out) {
  std::unordered_map<std::string, std::pair<State, double>> level;
  const State init = m.initial();
  level.emplace(key_of(init, m.classes()), std::make_pair(init, 1.0));
  while (!level.empty()) {
    std::unordered_map<std::string, std::pair<State, double>> next;
    for (auto& [key, entry] : level) {
      const State& s = entry.first;
      const double paths = entry.second;
      if (++out.states > cap) return false;
      if (m.finished(s)) {
        out.paths += paths;
        out.outcomes.insert(m.outcome(s));
        if (m.classes()) out.classes.insert(class_of(s));
        continue;
      }
      auto visit = [&](State&& t) {
        std::string k = key_of(t, m.classes());
        auto [it, fresh] = next.try_emplace(std::move(k), std::move(t), 0.0);
        it->second.second += paths;
      };
      for (std::size_t i = 0; i < s.threads.size(); ++i) {
        if (m.enabled(s, i)) {
          State t = s;
          m.step(t, i);
          visit(std::move(t));
        }
        if (m.tso() && !s.threads[i].buffer.empty()) {
          State t = s;
          m.drain(t, i);
          visit(std::move(t));
        }
      }
    }
    level = std::move(next);
  }
  return true;
}

}  // namespace

ReferenceResult enumerate(const program::Program& program, Model model, const ReferenceLimits& limits) {
  ReferenceResult r;
  {
    const Machine m(program, model, Classes::none);
    Search s;
    if (!explore(m, limits.max_states, s))
      throw std::length_error(fmt::format("reference: more than {} states", limits.max_states));
    r.outcomes = std::move(s.outcomes);
    r.states = s.states;
    r.interleavings = s.paths;
  }
  const bool asserts_fail = std::any_of(r.outcomes.begin(), r.outcomes.end(),
                                        [](const std::string& o) { return o.rfind("assertion", 0) == 0; });
  if (limits.count_classes && !asserts_fail) {
    for (const Classes c : {Classes::rf_co, Classes::dependence}) {
      const Machine m(program, model, c);
      Search s;
      if (!explore(m, limits.max_class_states, s)) break;
      (c == Classes::rf_co ? r.rf_co_classes : r.dependence_classes) = s.classes.size();
    }
  }
  return r;
}

std::string final_state_text(const program::Program& program, const std::vector<std::uint64_t>& values,
                             const std::vector<std::vector<std::int64_t>>& registers) {
  std::string out;
  for (std::size_t v = 0; v < values.size(); ++v)
    out += fmt::format("{}{}={}", v == 0 ? "" : " ", program.variables[v].name, values[v]);
  for (std::size_t t = 0; t < registers.size(); ++t)
    for (std::size_t k = 0; k < registers[t].size(); ++k)
      out += fmt::format(" {}.{}={}", program.threads[t].name, program.threads[t].registers[k], registers[t][k]);
  return out;
}

// "FILE:LINE:COL" -> "assertion at line LINE:COL": the same op under either model's file.
std::string assertions_text(std::vector<std::string> where) {
  for (std::string& w : where) {
    const std::size_t col = w.rfind(':');
    const std::size_t line = col == std::string::npos || col == 0 ? std::string::npos : w.rfind(':', col - 1);
    w = "assertion at line " + (line == std::string::npos ? w : w.substr(line + 1));
  }
  std::sort(where.begin(), where.end());
  where.erase(std::unique(where.begin(), where.end()), where.end());
  std::string out;
  for (const std::string& w : where) out += (out.empty() ? "" : " & ") + w;
  return out;
}

}  // namespace lockstep::difftest
