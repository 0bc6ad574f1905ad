#include "spec/program_loader.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/exec/memory.hpp"
#include "spec/expr_parser.hpp"

namespace lockstep::scenario {

namespace {

using program::ExprNode;
using program::ExprOp;
using program::Op;
using program::OpKind;

constexpr std::uint64_t kMaxIterations = 1'000'000;  // loop times, while max

constexpr std::array<std::string_view, 5> kOrderNames{"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
constexpr std::array<std::memory_order, 5> kOrders{std::memory_order_relaxed, std::memory_order_acquire,
                                                   std::memory_order_release, std::memory_order_acq_rel,
                                                   std::memory_order_seq_cst};
// C++ has no release loads, acquire stores or relaxed fences; neither has the op language.
constexpr std::array<std::string_view, 3> kLoadOrders{"relaxed", "acquire", "seq_cst"};
constexpr std::array<std::string_view, 3> kStoreOrders{"relaxed", "release", "seq_cst"};
constexpr std::array<std::string_view, 4> kFenceOrders{"acquire", "release", "acq_rel", "seq_cst"};

constexpr std::array<std::string_view, 3> kVariableKinds{"atomic", "plain", "futex"};
// futex_wake's and futex_requeue's `count: all` (INT_MAX, as callers of futex(2) pass).
constexpr std::int64_t kAllWaiters = 0x7fffffff;

std::optional<int> index_of(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<int>(it - names.begin());
}

// Parses `node` (an integer or an expression string) with `resolve` naming its leaves; an
// error points at the column inside the scalar.
program::Expr expression(const yaml::Source& src, const YAML::Node& node, std::string_view what,
                         const ExprResolver& resolve) {
  const std::string text = yaml::scalar(src, node, what);
  try {
    return parse_expr(text, resolve);
  } catch (const ExprError& e) {
    src.fail_at(src.where_in(node, e.offset()), fmt::format("{}: {}", what, e.what()));
  }
}

// Pass one over a thread's ops. Registers are numbered in the order `into:` and `reg:` first
// name them, before any expression is read, so that a condition may test a register that an
// op further down (run by an earlier iteration) assigns. Malformed ops are skipped here and
// reported by pass two.
void collect_registers(const YAML::Node& ops, std::vector<std::string>& registers) {
  if (!ops.IsSequence()) return;
  for (const auto& op : ops) {
    if (!op.IsMap() || op.size() != 1) continue;
    const YAML::Node args = op.begin()->second;
    if (!args.IsMap()) continue;
    for (const auto& field : args) {
      const std::string key = field.first.IsScalar() ? field.first.Scalar() : std::string();
      if ((key == "into" || key == "reg") && field.second.IsScalar()) {
        if (!index_of(registers, field.second.Scalar())) registers.push_back(field.second.Scalar());
      } else if (key == "then" || key == "else" || key == "body") {
        collect_registers(field.second, registers);
      }
    }
  }
}

std::string declared(const std::vector<std::string>& names, std::string_view kind) {
  if (names.empty()) return fmt::format("no {} are declared", kind);
  return fmt::format("declared: {}", yaml::join(names));
}

class ProgramLoader {
 public:
  ProgramLoader(const yaml::Source& src, const MachineSpec& machine) : src_(src), machine_(machine) {}

  program::Program load(const yaml::Map& root, const DesignSpec& design) {
    prog_.lock_kind = design.spinlock;
    prog_.mutex = design.mutex;
    if (design.condvar) prog_.condvar_kind = *design.condvar;
    if (design.futex) prog_.futex = design.futex->config;
    if (const auto node = root.get("variables")) variables(*node);
    if (const auto node = root.get("locks")) locks(*node);
    if (const auto node = root.get("condvars")) condvars(*node, design);
    if (design.condvar && prog_.condvars.empty())
      src_.fail_at(design.condvar_where, "design.condvar: the program declares no condvars (`condvars: [...]`)");
    threads(root.required("threads"));
    return std::move(prog_);
  }

 private:
  using Reader = void (ProgramLoader::*)(Op&, const YAML::Node&, std::string_view);
  struct OpReader {
    std::string_view name;
    Reader read;
  };
  static const std::array<OpReader, 23> kOps;

  // --- variables and locks

  void variables(const YAML::Node& node) {
    yaml::require_map(src_, node, "variables");
    for (const auto& entry : node) {
      const std::string name = yaml::identifier(src_, entry.first, "variable name");
      if (variable_index(name)) src_.fail(entry.first, fmt::format("variable '{}' is declared twice", name));
      prog_.variables.push_back(variable(name, entry.second));
    }
  }

  program::Variable variable(const std::string& name, const YAML::Node& node) {
    program::Variable v;
    v.name = name;
    if (node.IsScalar()) {
      v.init = yaml::word(src_, node, "init");
      return v;
    }
    if (!node.IsMap()) {
      src_.fail(node,
                fmt::format("variable '{}': expected an initial value or a map {{init, kind, node, align}}, got {}",
                            name, yaml::describe(node)));
    }
    const yaml::Map m(src_, node, fmt::format("variable '{}'", name), {"init", "kind", "node", "align"});
    if (const auto init = m.get("init")) v.init = yaml::word(src_, *init, "init");
    if (const auto kind = m.get("kind")) {
      const std::size_t k = yaml::choice(src_, *kind, "variable kind", kVariableKinds);
      v.atomic = k != 1;
      v.futex = k == 2;
    }
    v.node = static_cast<NodeId>(m.integer_or("node", 0, machine_.nodes() - 1, 0));
    v.align = m.unsigned_or("align", 8, sim::kPageBytes, 8);
    if (v.futex && v.init > 0xffffffffULL)
      src_.fail(*m.get("init"),
                fmt::format("variable '{}': a futex word holds 32 bits, {} does not fit", name, v.init));
    if ((v.align & (v.align - 1)) != 0)
      src_.fail(*m.get("align"), fmt::format("align: {} is not a power of two", v.align));
    return v;
  }

  void locks(const YAML::Node& node) {
    yaml::require_list(src_, node, "locks");
    for (const auto& entry : node) {
      const std::string name = yaml::identifier(src_, entry, "lock name");
      if (index_of(prog_.locks, name)) src_.fail(entry, fmt::format("lock '{}' is declared twice", name));
      // One namespace for both keeps messages and traces unambiguous.
      if (variable_index(name)) src_.fail(entry, fmt::format("'{}' is already a variable", name));
      prog_.locks.push_back(name);
    }
  }

  // A condvar waits with futex mutexes (design.mutex), and needs one to exist.
  void condvars(const YAML::Node& node, const DesignSpec& design) {
    yaml::require_list(src_, node, "condvars");
    if (!design.mutex)
      src_.fail(node, "condvars wait with futex mutexes: give `design: {mutex: KIND}` (docs/scenarios.md, \"locks\")");
    if (usync::is_robust(*design.mutex))
      src_.fail(node, fmt::format("condvars wait with a mutex they lock without a thread id; design.mutex {} is robust "
                                  "(it stores its owner's) and cannot be one",
                                  usync::kMutexNames[static_cast<std::size_t>(*design.mutex)]));
    if (prog_.locks.empty()) src_.fail(node, "condvars wait with a lock: declare one under `locks`");
    for (const auto& entry : node) {
      const std::string name = yaml::identifier(src_, entry, "condvar name");
      if (index_of(prog_.condvars, name)) src_.fail(entry, fmt::format("condvar '{}' is declared twice", name));
      if (variable_index(name) || index_of(prog_.locks, name))
        src_.fail(entry, fmt::format("'{}' is already a variable or a lock", name));
      prog_.condvars.push_back(name);
      prog_.condvar_lock.push_back(-1);
    }
  }

  int condvar_ref(const YAML::Node& node) {
    const std::string name = yaml::identifier(src_, node, "condvar");
    const std::optional<int> index = index_of(prog_.condvars, name);
    if (!index) src_.fail(node, fmt::format("unknown condvar '{}' ({})", name, declared(prog_.condvars, "condvars")));
    return *index;
  }

  std::optional<int> variable_index(std::string_view name) const {
    for (std::size_t i = 0; i < prog_.variables.size(); ++i)
      if (prog_.variables[i].name == name) return static_cast<int>(i);
    return std::nullopt;
  }

  // --- threads

  void threads(const YAML::Node& node) {
    yaml::require_list(src_, node, "threads");
    if (node.size() == 0) src_.fail(node, "threads: a program needs at least one thread");
    if (node.size() > sim::kMaxThreads) src_.fail(node, fmt::format("threads: at most {} threads", sim::kMaxThreads));
    for (std::size_t i = 0; i < node.size(); ++i) prog_.threads.push_back(thread(node[i], i));
    // A mortal thread and a thread with timed waits each bring a companion thread (its kill,
    // its timer), and the simulator runs at most kMaxThreads in all.
    std::size_t companions = 0;
    for (const program::ThreadProgram& t : prog_.threads) companions += (t.may_die ? 1 : 0) + (t.timed_waits ? 1 : 0);
    if (prog_.threads.size() + companions > sim::kMaxThreads)
      src_.fail(node,
                fmt::format("threads: {} threads and {} companions (kill:NAME for `may_die`, timer:NAME for timed "
                            "waits) are more than the {} the simulator runs",
                            prog_.threads.size(), companions, sim::kMaxThreads));
    // The cap is on one execution's work, all threads together (16 threads of 99
    // million `set`s each passed a per-thread cap and took a minute an execution).
    const std::uint64_t total = all_threads_ops_;
    if (total > kMaxProgramOps)
      src_.fail(node, fmt::format("the threads can run more than {} ops in one execution, all together ({}); lower "
                                  "a `times` or a `max`, or run fewer threads",
                                  kMaxProgramOps,
                                  total == kUnbounded ? std::string("more than 2^64") : std::to_string(total)));
  }

  program::ThreadProgram thread(const YAML::Node& node, std::size_t index) {
    const yaml::Map m(src_, node, "thread", {"name", "cpu", "may_die", "program"});
    program::ThreadProgram t;
    const YAML::Node name = m.required("name");
    t.name = yaml::identifier(src_, name, "thread name");
    for (const program::ThreadProgram& other : prog_.threads)
      if (other.name == t.name) src_.fail(name, fmt::format("duplicate thread name '{}'", t.name));
    const int cpus = machine_.cpus();
    t.cpu = static_cast<CpuId>(m.integer_or("cpu", 0, cpus - 1, static_cast<std::int64_t>(index) % cpus));
    t.may_die = m.boolean_or("may_die", false);
    t.where = src_.where(node);
    const YAML::Node body = m.required("program");
    collect_registers(body, t.registers);
    thread_ = &t;
    t.body = ops(body, "program");
    thread_ = nullptr;
    t.timed_waits = has_timed_wait(t.body);
    // Every loop is bounded (times, max), so a thread's run is too; but the bounds multiply,
    // and ops that are not steps (set, if) run without a scheduling point, so no step cap
    // would stop them. The bound is checked here, where the user can see it.
    const std::uint64_t most = most_ops(t.body);
    all_threads_ops_ = saturating_add(all_threads_ops_, most);
    if (most > kMaxProgramOps)
      src_.fail(body, fmt::format("thread '{}' can run more than {} ops (its loops' bounds multiply: {}); lower "
                                  "a `times` or a `max`",
                                  t.name, kMaxProgramOps,
                                  most == kUnbounded ? std::string("more than 2^64") : std::to_string(most)));
    return t;
  }

  static bool has_timed_wait(const std::vector<Op>& block) {
    return std::any_of(block.begin(), block.end(), [](const Op& op) {
      return op.timed || has_timed_wait(op.body) || has_timed_wait(op.else_body);
    });
  }

  // The most ops `block` can run, saturating at kUnbounded.
  static constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();
  // One execution's ops, every thread's together: about a second of the engine's time for
  // ops that are not steps (`set`, `if`), ten for memory operations.
  static constexpr std::uint64_t kMaxProgramOps = 100'000'000;
  static std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > kUnbounded - b ? kUnbounded : a + b;
  }
  static std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    return a != 0 && b > kUnbounded / a ? kUnbounded : a * b;
  }
  static std::uint64_t most_ops(const std::vector<Op>& block) {
    std::uint64_t total = 0;
    for (const Op& op : block) {
      std::uint64_t here = 1;
      switch (op.kind) {
        case program::OpKind::if_:
          here = saturating_add(1, std::max(most_ops(op.body), most_ops(op.else_body)));
          break;
        case program::OpKind::loop:
          here = saturating_add(1, saturating_mul(op.count, most_ops(op.body)));
          break;
        case program::OpKind::while_:
          here = saturating_add(1, saturating_mul(op.count, saturating_add(1, most_ops(op.body))));
          break;
        default:
          break;
      }
      total = saturating_add(total, here);
    }
    return total;
  }

  // --- ops

  std::vector<Op> ops(const YAML::Node& node, std::string_view what) {
    yaml::require_list(src_, node, what);
    std::vector<Op> out;
    for (const auto& entry : node) out.push_back(read_op(entry));
    return out;
  }

  Op read_op(const YAML::Node& node) {
    Op op;
    op.where = src_.where(node);
    if (node.IsScalar()) {
      bare_op(op, node);
      return op;
    }
    if (!node.IsMap() || node.size() != 1) {
      src_.fail(node,
                fmt::format("an op is a single-key map such as {{load: {{var: x, into: r0}}}} or a bare "
                            "pause, got {}{}",
                            describe_op(node), node.IsMap() ? " (are its arguments indented under its name?)" : ""));
    }
    const auto& entry = *node.begin();
    const std::string name = yaml::scalar(src_, entry.first, "op");
    (this->*reader(entry.first, name).read)(op, entry.second, name);
    return op;
  }

  static std::string describe_op(const YAML::Node& node) {
    if (!node.IsMap()) return yaml::describe(node);
    std::vector<std::string> keys;
    for (const auto& entry : node) keys.push_back(entry.first.IsScalar() ? entry.first.Scalar() : "?");
    return fmt::format("a map with keys {}", yaml::join(keys));
  }

  const OpReader& reader(const YAML::Node& at, std::string_view name) const {
    for (const OpReader& r : kOps)
      if (r.name == name) return r;
    std::vector<std::string_view> names;
    names.reserve(kOps.size());
    for (const OpReader& r : kOps) names.push_back(r.name);
    src_.fail(at, fmt::format("unknown op '{}' (expected one of: {})", name, yaml::join(names)));
  }

  void bare_op(Op& op, const YAML::Node& node) {
    const std::string& name = node.Scalar();
    if (name == "pause" || name == "fence") {
      (this->*reader(node, name).read)(op, YAML::Node(YAML::NodeType::Null), name);
      return;
    }
    reader(node, name);  // fails for names that are not ops
    src_.fail(node, fmt::format("op '{}' needs arguments: {{{}: ...}}", name, name));
  }

  void read_load(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "load", {"var", "into", "order"});
    op.kind = OpKind::load;
    op.var = variable_ref(m.required("var"));
    op.reg = register_ref(m.required("into"));
    op.order = order(m, kLoadOrders, op.var, "a load");
  }

  void read_store(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "store", {"var", "value", "order"});
    op.kind = OpKind::store;
    op.var = variable_ref(m.required("var"));
    op.value = thread_expr(m.required("value"), "value");
    op.order = order(m, kStoreOrders, op.var, "a store");
  }

  void read_rmw(Op& op, const YAML::Node& args, std::string_view name) {
    const yaml::Map m(src_, args, std::string(name), {"var", "value", "into", "order"});
    op.kind = OpKind::rmw;
    op.rmw = rmw_named(name);
    op.var = atomic_ref(m.required("var"));
    op.value = thread_expr(m.required("value"), "value");
    if (const auto into = m.get("into")) op.reg = register_ref(*into);
    op.order = order(m, kOrderNames, op.var, fmt::format("a {}", name));
  }

  void read_cas(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "cas", {"var", "expected", "desired", "into", "order"});
    op.kind = OpKind::rmw;
    op.rmw = RmwOp::compare_exchange;
    op.var = atomic_ref(m.required("var"));
    op.expected = thread_expr(m.required("expected"), "expected");
    op.value = thread_expr(m.required("desired"), "desired");
    if (const auto into = m.get("into")) op.reg = register_ref(*into);
    op.order = order(m, kOrderNames, op.var, "a cas");
  }

  static RmwOp rmw_named(std::string_view name) {
    if (name == "fetch_add") return RmwOp::fetch_add;
    if (name == "fetch_sub") return RmwOp::fetch_sub;
    if (name == "fetch_or") return RmwOp::fetch_or;
    if (name == "fetch_and") return RmwOp::fetch_and;
    if (name == "exchange") return RmwOp::exchange;
    throw std::logic_error(fmt::format("no read-modify-write named '{}'", name));
  }

  // `fence`, `fence: seq_cst` or `fence: {order: seq_cst}`.
  void read_fence(Op& op, const YAML::Node& args, std::string_view) {
    op.kind = OpKind::fence;
    if (args.IsNull()) return;
    if (args.IsScalar()) {
      op.order = order_value(args, kFenceOrders, "a fence");
      return;
    }
    const yaml::Map m(src_, args, "fence", {"order"});
    op.order = order(m, kFenceOrders, -1, "a fence");
  }

  void read_pause(Op& op, const YAML::Node& args, std::string_view) {
    if (!args.IsNull()) src_.fail(args, "pause takes no arguments");
    op.kind = OpKind::pause;
  }

  void read_set(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "set", {"reg", "value"});
    op.kind = OpKind::set;
    op.reg = register_ref(m.required("reg"));
    op.value = thread_expr(m.required("value"), "value");
  }

  void read_if(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "if", {"cond", "then", "else"});
    op.kind = OpKind::if_;
    op.cond = thread_expr(m.required("cond"), "cond");
    op.body = ops(m.required("then"), "then");
    if (const auto otherwise = m.get("else")) op.else_body = ops(*otherwise, "else");
  }

  void read_loop(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "loop", {"times", "body"});
    op.kind = OpKind::loop;
    op.count = yaml::unsigned_integer(src_, m.required("times"), "times", 1, kMaxIterations);
    op.body = ops(m.required("body"), "body");
  }

  void read_while(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "while", {"cond", "max", "body"});
    op.kind = OpKind::while_;
    op.cond = thread_expr(m.required("cond"), "cond");
    op.count = yaml::unsigned_integer(src_, m.required("max"), "max", 1, kMaxIterations);
    op.body = ops(m.required("body"), "body");
  }

  void read_assert(Op& op, const YAML::Node& args, std::string_view) {
    op.kind = OpKind::assert_;
    op.cond = thread_expr(args, "assert");
  }

  void read_lock(Op& op, const YAML::Node& args, std::string_view name) {
    op.kind = name == "lock" ? OpKind::lock : OpKind::unlock;
    op.lock = lock_ref(args);
  }

  int lock_ref(const YAML::Node& node) {
    const std::string lock = yaml::identifier(src_, node, "lock");
    const std::optional<int> index = index_of(prog_.locks, lock);
    if (!index) src_.fail(node, fmt::format("unknown lock '{}' ({})", lock, declared(prog_.locks, "locks")));
    return *index;
  }

  // cond_wait: {cond: C, lock: L}: the thread holds L; all waits on C use the same lock, as
  // POSIX requires of waits that overlap (and the sequence condvar's requeue relies on).
  void read_cond_wait(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "cond_wait", {"cond", "lock"});
    op.kind = OpKind::cond_wait;
    op.condvar = condvar_ref(m.required("cond"));
    const int index = lock_ref(m.required("lock"));
    int& bound = prog_.condvar_lock[static_cast<std::size_t>(op.condvar)];
    if (bound >= 0 && bound != index)
      src_.fail(m.required("lock"),
                fmt::format("condvar '{}' is waited on with lock '{}' elsewhere: one condvar, one lock",
                            prog_.condvars[static_cast<std::size_t>(op.condvar)],
                            prog_.locks[static_cast<std::size_t>(bound)]));
    bound = index;
    op.lock = index;
  }

  // cond_signal: C, cond_broadcast: C.
  void read_cond_signal(Op& op, const YAML::Node& args, std::string_view name) {
    op.kind = name == "cond_signal" ? OpKind::cond_signal : OpKind::cond_broadcast;
    op.condvar = condvar_ref(args);
  }

  // futex_wait: {var: f, expect: EXPR, timeout: BOOL, into: r}: r gets 0 when woken, 11
  // (EAGAIN) when the word differed, 110 (ETIMEDOUT) when the thread's deadline passed.
  void read_futex_wait(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "futex_wait", {"var", "expect", "timeout", "into"});
    op.kind = OpKind::futex_wait;
    op.var = futex_ref(m.required("var"));
    op.amount = thread_expr(m.required("expect"), "expect");
    op.timed = m.boolean_or("timeout", false);
    if (const auto into = m.get("into")) op.reg = register_ref(*into);
  }

  // futex_wake: {var: f, count: EXPR | all, into: r}: r gets how many were woken.
  void read_futex_wake(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "futex_wake", {"var", "count", "into"});
    op.kind = OpKind::futex_wake;
    op.var = futex_ref(m.required("var"));
    op.amount = count_expr(m.get("count"), "count");
    if (const auto into = m.get("into")) op.reg = register_ref(*into);
  }

  // futex_requeue: {var: f, to: g, wake: EXPR, requeue: EXPR | all, expect: EXPR, into: r}:
  // FUTEX_CMP_REQUEUE when `expect` is given; r gets woken + moved, or -11 on EAGAIN.
  void read_futex_requeue(Op& op, const YAML::Node& args, std::string_view) {
    const yaml::Map m(src_, args, "futex_requeue", {"var", "to", "wake", "requeue", "expect", "into"});
    op.kind = OpKind::futex_requeue;
    op.var = futex_ref(m.required("var"));
    op.var2 = futex_ref(m.required("to"));
    op.amount = count_expr(m.get("wake"), "wake");
    op.amount2 = count_expr(m.get("requeue"), "requeue");
    if (const auto expect = m.get("expect")) op.expected = thread_expr(*expect, "expect");
    if (const auto into = m.get("into")) op.reg = register_ref(*into);
  }

  // A count of waiters: an expression, or `all`; 1 when not given.
  program::Expr count_expr(const std::optional<YAML::Node>& node, std::string_view what) {
    if (node && node->IsScalar() && node->Scalar() == "all") {
      program::Expr all;
      all.code.push_back(program::ExprNode{program::ExprOp::constant, kAllWaiters, -1, -1});
      all.text = "all";
      return all;
    }
    if (node) return thread_expr(*node, what);
    program::Expr one;
    one.code.push_back(program::ExprNode{program::ExprOp::constant, 1, -1, -1});
    one.text = "1";
    return one;
  }

  // --- operands

  // Futex ops take 32-bit words: variables declared `kind: futex`.
  int futex_ref(const YAML::Node& node) {
    const int var = variable_ref(node);
    const program::Variable& v = prog_.variables[static_cast<std::size_t>(var)];
    if (!v.futex)
      src_.fail(node, fmt::format("{} is not a futex word: declare it as {{{}: {{kind: futex}}}}", v.name, v.name));
    prog_.uses_futex = true;
    return var;
  }

  int variable_ref(const YAML::Node& node) const {
    const std::string name = yaml::identifier(src_, node, "var");
    if (const std::optional<int> index = variable_index(name)) return *index;
    std::vector<std::string> names;
    for (const program::Variable& v : prog_.variables) names.push_back(v.name);
    src_.fail(node, fmt::format("unknown variable '{}' ({})", name, declared(names, "variables")));
  }

  // Plain variables are P::Shared words: the platform offers them no read-modify-write.
  int atomic_ref(const YAML::Node& node) const {
    const int var = variable_ref(node);
    const program::Variable& v = prog_.variables[static_cast<std::size_t>(var)];
    if (!v.atomic) src_.fail(node, fmt::format("{} is a plain variable: only load and store", v.name));
    return var;
  }

  int register_ref(const YAML::Node& node) const {
    const std::string name = yaml::identifier(src_, node, "register");
    const std::optional<int> index = index_of(thread_->registers, name);
    if (!index) throw std::logic_error(fmt::format("register '{}' was not collected", name));
    return *index;
  }

  std::memory_order order(const yaml::Map& m, std::span<const std::string_view> allowed, int var,
                          std::string_view what) const {
    const std::optional<YAML::Node> node = m.get("order");
    if (!node) return std::memory_order_seq_cst;
    if (var >= 0 && !prog_.variables[static_cast<std::size_t>(var)].atomic) {
      src_.fail(*node, fmt::format("{} is a plain variable: only load and store, without an order",
                                   prog_.variables[static_cast<std::size_t>(var)].name));
    }
    return order_value(*node, allowed, what);
  }

  std::memory_order order_value(const YAML::Node& node, std::span<const std::string_view> allowed,
                                std::string_view what) const {
    const std::size_t index = yaml::choice(src_, node, "memory order", kOrderNames);
    if (std::find(allowed.begin(), allowed.end(), kOrderNames[index]) == allowed.end()) {
      src_.fail(node,
                fmt::format("{} cannot be {} (expected one of: {})", what, kOrderNames[index], yaml::join(allowed)));
    }
    return kOrders[index];
  }

  program::Expr thread_expr(const YAML::Node& node, std::string_view what) const {
    const program::ThreadProgram* t = thread_;
    const program::Program* prog = &prog_;
    return expression(src_, node, what, [t, prog](std::string_view name) -> ExprResolved {
      if (const std::optional<int> reg = index_of(t->registers, name)) return ExprNode{ExprOp::reg, 0, *reg, -1};
      if (name.find('.') != std::string_view::npos)
        return fmt::format("'{}': thread.register names belong in final conditions, not in a thread", name);
      for (const program::Variable& v : prog->variables) {
        if (v.name == name) {
          return fmt::format("unknown register '{}' in thread {} ({} is a variable: load it into a register)", name,
                             t->name, name);
        }
      }
      return fmt::format("unknown register '{}' in thread {}", name, t->name);
    });
  }

  const yaml::Source& src_;
  const MachineSpec& machine_;
  program::Program prog_;
  std::uint64_t all_threads_ops_ = 0;               // the most ops the threads loaded so far can run, together
  const program::ThreadProgram* thread_ = nullptr;  // the thread whose ops are being read
};

const std::array<ProgramLoader::OpReader, 23> ProgramLoader::kOps{{
    {"load", &ProgramLoader::read_load},
    {"store", &ProgramLoader::read_store},
    {"fetch_add", &ProgramLoader::read_rmw},
    {"fetch_sub", &ProgramLoader::read_rmw},
    {"fetch_or", &ProgramLoader::read_rmw},
    {"fetch_and", &ProgramLoader::read_rmw},
    {"exchange", &ProgramLoader::read_rmw},
    {"cas", &ProgramLoader::read_cas},
    {"fence", &ProgramLoader::read_fence},
    {"pause", &ProgramLoader::read_pause},
    {"set", &ProgramLoader::read_set},
    {"if", &ProgramLoader::read_if},
    {"loop", &ProgramLoader::read_loop},
    {"while", &ProgramLoader::read_while},
    {"assert", &ProgramLoader::read_assert},
    {"lock", &ProgramLoader::read_lock},
    {"unlock", &ProgramLoader::read_lock},
    {"futex_wait", &ProgramLoader::read_futex_wait},
    {"futex_wake", &ProgramLoader::read_futex_wake},
    {"futex_requeue", &ProgramLoader::read_futex_requeue},
    {"cond_wait", &ProgramLoader::read_cond_wait},
    {"cond_signal", &ProgramLoader::read_cond_signal},
    {"cond_broadcast", &ProgramLoader::read_cond_signal},
}};

// Final conditions name variables by their name and registers as thread.register.
ExprResolved final_leaf(const program::Program& prog, std::string_view name) {
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) {
    for (std::size_t i = 0; i < prog.variables.size(); ++i)
      if (prog.variables[i].name == name) return ExprNode{ExprOp::var, 0, static_cast<int>(i), -1};
    return fmt::format("unknown variable '{}' (registers are named thread.register, as t0.r0)", name);
  }
  const std::string_view thread = name.substr(0, dot);
  const std::string_view reg = name.substr(dot + 1);
  for (std::size_t t = 0; t < prog.threads.size(); ++t) {
    if (prog.threads[t].name != thread) continue;
    if (const std::optional<int> r = index_of(prog.threads[t].registers, reg))
      return ExprNode{ExprOp::thread_reg, 0, *r, static_cast<int>(t)};
    return fmt::format("thread {} has no register '{}'", thread, reg);
  }
  return fmt::format("unknown thread '{}' in '{}'", thread, name);
}

}  // namespace

program::Program load_program(const yaml::Map& root, const MachineSpec& machine, const DesignSpec& design) {
  return ProgramLoader(root.source(), machine).load(root, design);
}

program::FinalCondition load_final_condition(const yaml::Source& src, const std::string& name, const YAML::Node& expr,
                                             std::string_view what, const program::Program& prog) {
  program::FinalCondition c;
  c.property = name;
  c.where = src.where(expr);
  c.expr = expression(src, expr, what, [&prog](std::string_view leaf) { return final_leaf(prog, leaf); });
  return c;
}

}  // namespace lockstep::scenario
