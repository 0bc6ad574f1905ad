// The scenario loader (spec/scenario_loader.cpp and friends): good files load with the values
// they say, bad files fail with the exact place of the mistake (docs/scenarios.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include "core/properties.hpp"
#include "core/workloads/expr_eval.hpp"
#include "io/files.hpp"
#include "scenario_fixtures.hpp"
#include "spec/expr_parser.hpp"
#include "spec/scenario.hpp"
#include "spec/workload_kinds.hpp"
#include "spec/yaml_fields.hpp"

using namespace lockstep;
using namespace lockstep::scenario;
using namespace lockstep::testing;
using program::ExprNode;
using program::ExprOp;
using program::OpKind;

namespace {

// The ops of a code sequence, for compact comparisons.
std::vector<ExprOp> ops_of(const program::Expr& e) {
  std::vector<ExprOp> out;
  for (const ExprNode& n : e.code) out.push_back(n.op);
  return out;
}

// Expressions over registers a, b, c (indices 0, 1, 2), evaluated with a = 5, b = 3, c = 0.
std::int64_t eval(const std::string& text) {
  const ExprResolver resolve = [](std::string_view name) -> ExprResolved {
    if (name == "a") return ExprNode{ExprOp::reg, 0, 0, -1};
    if (name == "b") return ExprNode{ExprOp::reg, 0, 1, -1};
    if (name == "c") return ExprNode{ExprOp::reg, 0, 2, -1};
    return "unknown name '" + std::string(name) + "'";
  };
  const program::Expr e = parse_expr(text, resolve);
  const std::int64_t regs[] = {5, 3, 0};
  return program::evaluate(e, [&](const ExprNode& n) { return regs[n.index]; });
}

std::size_t expr_error_offset(const std::string& text) {
  try {
    eval(text);
  } catch (const ExprError& e) {
    return e.offset();
  }
  return std::string::npos;
}

}  // namespace

TEST_CASE("a lock-counter scenario with every machine override", "[scenario]") {
  const std::string path = fixture("good/lock_counter.yaml");
  const ScenarioFile file = load_scenario_file(path);
  CHECK(file.path == path);
  CHECK(file.sha256 == io::sha256_hex(io::read_file(path)));
  CHECK_FALSE(file.swept);
  REQUIRE(file.rows.size() == 1);
  const Scenario& s = file.rows[0];
  CHECK(s.path == path);
  CHECK(s.name == "counter under a ttas lock");
  CHECK(s.machine.preset == "flat");
  CHECK(s.machine.node_of_cpu == std::vector<NodeId>{0, 0, 0, 0, 1, 1, 1, 1});
  const sim::FlatCosts& c = s.machine.costs;
  CHECK(c.load_ns == 3);
  CHECK(c.store_ns == 4);
  CHECK(c.rmw_ns == 20);
  CHECK(c.plain_ns == 5);
  CHECK(c.fence_ns == 30);
  CHECK(c.pause_ns == 10);
  CHECK(c.wake_ns == 1000);
  CHECK(c.unpark_ns == 200);
  CHECK(c.context_switch_ns == 900);
  CHECK(c.time_slice_ns == 100000);
  CHECK(c.work_ns == std::array<std::uint64_t, kWorkKinds>{11, 12, 13, 2});
  CHECK(s.design.spinlock == SpinlockKind::ttas);
  REQUIRE(s.workload.is("lock-counter"));
  CHECK(s.workload.get<LockCounterParams>().lock == SpinlockKind::ttas);
  CHECK(s.workload.get<LockCounterParams>().threads == 6);
  CHECK(s.workload.get<LockCounterParams>().iterations == 25);
  CHECK(s.workload.get<LockCounterParams>().cpus == 4);
  CHECK(s.properties == std::vector<std::string>{"mutual_exclusion", "deadlock"});
  CHECK(s.strategy.kind == StrategyKind::timed);
  CHECK(s.strategy.seed == 99);
  CHECK(s.strategy.max_steps == 200000);
  CHECK(s.expect.kind == Expectation::Kind::pass);
  CHECK(s.params.empty());
}

TEST_CASE("defaults of a minimal scenario", "[scenario]") {
  const Scenario s = load_one("good/defaults.yaml");
  const sim::FlatCosts defaults;
  CHECK(s.description.empty());
  CHECK(s.machine.preset == "flat");
  CHECK(s.machine.node_of_cpu == std::vector<NodeId>{0, 0});
  CHECK(s.machine.costs.load_ns == defaults.load_ns);
  CHECK(s.machine.costs.time_slice_ns == defaults.time_slice_ns);
  CHECK(s.machine.costs.work_ns == defaults.work_ns);
  CHECK(s.memory_model == MemoryModel::sc);
  CHECK(s.design.family == "spinlock");
  CHECK(s.design.spinlock == SpinlockKind::ticket);
  CHECK(s.workload.get<LockCounterParams>().lock == SpinlockKind::ticket);
  CHECK(s.workload.get<LockCounterParams>().threads == 2);
  CHECK(s.workload.get<LockCounterParams>().iterations == 10);
  CHECK(s.workload.get<LockCounterParams>().cpus == 2);
  CHECK(s.properties == std::vector<std::string>{"mutual_exclusion", "deadlock", "lost_wakeup", "bound_exceeded"});
  CHECK(s.strategy.kind == StrategyKind::random);
  CHECK(s.strategy.seed == 1);
  CHECK(s.strategy.executions == 1000);
  CHECK(s.strategy.max_steps == 1'000'000);
  CHECK(s.expect.kind == Expectation::Kind::pass);
}

TEST_CASE("a program with every op kind", "[scenario]") {
  const std::string path = fixture("good/program_all_ops.yaml");
  const Scenario s = load_one("good/program_all_ops.yaml");
  CHECK(s.description == "exercises each op kind");
  CHECK(s.machine.node_of_cpu == std::vector<NodeId>{0, 0, 1, 1});
  REQUIRE(s.workload.is("program"));
  const program::Program& p = *s.workload.get<std::shared_ptr<const program::Program>>();
  CHECK(p.lock_kind == SpinlockKind::ttas);
  CHECK(p.locks == std::vector<std::string>{"L"});

  REQUIRE(p.variables.size() == 3);
  CHECK((p.variables[0].name == "x" && p.variables[0].atomic && p.variables[0].init == 0));
  CHECK((p.variables[0].node == 0 && p.variables[0].align == 8));
  CHECK((p.variables[1].name == "y" && !p.variables[1].atomic && p.variables[1].init == 5));
  CHECK((p.variables[1].node == 1 && p.variables[1].align == 64));
  CHECK(p.variables[2].init == ~std::uint64_t{0});  // -1 as a word

  REQUIRE(p.threads.size() == 2);
  const program::ThreadProgram& t0 = p.threads[0];
  CHECK(t0.name == "t0");
  CHECK(t0.cpu == 0);
  CHECK(t0.registers == std::vector<std::string>{"r0", "r1", "r2", "r3"});
  REQUIRE(t0.body.size() == 11);
  const auto& ops = t0.body;
  CHECK(ops[0].where == path + ":14:9");
  CHECK((ops[0].kind == OpKind::load && ops[0].var == 0 && ops[0].reg == 0));
  CHECK(ops[0].order == std::memory_order_acquire);
  CHECK((ops[1].kind == OpKind::store && ops[1].order == std::memory_order_release));
  CHECK(ops_of(ops[1].value) == std::vector<ExprOp>{ExprOp::reg, ExprOp::constant, ExprOp::add});
  CHECK(ops[1].value.text == "r0 + 1");
  CHECK((ops[2].kind == OpKind::rmw && ops[2].rmw == RmwOp::fetch_add && ops[2].reg == 1));
  CHECK(ops[2].order == std::memory_order_seq_cst);
  CHECK((ops[3].rmw == RmwOp::fetch_sub && ops[3].reg == -1 && ops[3].order == std::memory_order_relaxed));
  CHECK((ops[4].rmw == RmwOp::fetch_or && ops[4].value.code[0].value == 16));
  CHECK(ops[4].order == std::memory_order_acq_rel);
  CHECK(
      (ops[5].rmw == RmwOp::fetch_and && ops_of(ops[5].value) == std::vector<ExprOp>{ExprOp::constant, ExprOp::bnot}));
  CHECK((ops[6].rmw == RmwOp::exchange && ops[6].var == 2 && ops[6].reg == 2));
  CHECK((ops[7].rmw == RmwOp::compare_exchange && ops[7].reg == 3));
  CHECK(ops_of(ops[7].expected) == std::vector<ExprOp>{ExprOp::reg});
  CHECK(ops_of(ops[7].value) == std::vector<ExprOp>{ExprOp::reg, ExprOp::constant, ExprOp::mul});
  CHECK((ops[8].kind == OpKind::fence && ops[8].order == std::memory_order_seq_cst));
  CHECK((ops[9].kind == OpKind::fence && ops[9].order == std::memory_order_acquire));
  CHECK(ops[10].kind == OpKind::pause);

  const program::ThreadProgram& t1 = p.threads[1];
  CHECK(t1.cpu == 3);
  // `done` is first named by the while's body, after the condition that reads it.
  CHECK(t1.registers == std::vector<std::string>{"i", "v", "done"});
  REQUIRE(t1.body.size() == 9);
  const auto& b = t1.body;
  CHECK((b[0].kind == OpKind::set && b[0].reg == 0));
  CHECK((b[1].kind == OpKind::lock && b[1].lock == 0));
  CHECK((b[2].kind == OpKind::load && b[2].var == 1 && b[2].reg == 1));
  CHECK((b[3].kind == OpKind::store && b[3].var == 1));
  CHECK((b[4].kind == OpKind::unlock && b[4].lock == 0));
  CHECK(b[5].kind == OpKind::if_);
  CHECK(ops_of(b[5].cond) == std::vector<ExprOp>{ExprOp::reg, ExprOp::constant, ExprOp::eq, ExprOp::reg,
                                                 ExprOp::constant, ExprOp::gt, ExprOp::lnot, ExprOp::land});
  CHECK((b[5].body.size() == 1 && b[5].body[0].kind == OpKind::set));
  CHECK((b[5].else_body.size() == 1 && b[5].else_body[0].kind == OpKind::pause));
  CHECK((b[6].kind == OpKind::loop && b[6].count == 3 && b[6].body.size() == 1));
  CHECK((b[7].kind == OpKind::while_ && b[7].count == 10));
  CHECK(b[7].cond.code[0].index == 2);
  CHECK((b[7].body.size() == 1 && b[7].body[0].reg == 2 && b[7].body[0].var == 2));
  CHECK((b[8].kind == OpKind::assert_ && b[8].cond.text == "i == 4"));

  REQUIRE(p.forall.size() == 1);
  const program::FinalCondition& f = p.forall[0];
  CHECK(f.property == "sum");
  CHECK(f.where == path + ":49:25");
  REQUIRE(f.expr.code.size() == 11);
  CHECK((f.expr.code[0].op == ExprOp::var && f.expr.code[0].index == 0));
  CHECK((f.expr.code[3].op == ExprOp::thread_reg && f.expr.code[3].thread == 1 && f.expr.code[3].index == 0));
  CHECK((f.expr.code[7].op == ExprOp::var && f.expr.code[7].index == 1));

  CHECK(s.properties == std::vector<std::string>{"assertion", "deadlock", "sum"});
  CHECK(s.strategy.kind == StrategyKind::random);
  CHECK(s.strategy.executions == 50);
  CHECK(s.strategy.seed == 7);
  CHECK(s.strategy.max_steps == 5000);
  CHECK(s.expect.kind == Expectation::Kind::violation);
  CHECK(s.expect.property == "sum");
}

TEST_CASE("defaults of a thread program", "[scenario]") {
  const Scenario s = load_one("good/program_defaults.yaml");
  const program::Program& p = *s.workload.get<std::shared_ptr<const program::Program>>();
  CHECK(p.lock_kind == SpinlockKind::ticket);
  // Threads without a cpu go round robin over the machine's two CPUs.
  REQUIRE(p.threads.size() == 3);
  CHECK(p.threads[0].cpu == 0);
  CHECK(p.threads[1].cpu == 1);
  CHECK(p.threads[2].cpu == 0);
  CHECK(p.threads[0].registers.empty());
  CHECK(p.threads[0].body[0].reg == -1);
  CHECK(p.threads[0].body[0].order == std::memory_order_seq_cst);
  CHECK(s.properties ==
        std::vector<std::string>{"assertion", "condvar_mutex", "deadlock", "lost_wakeup", "bound_exceeded"});
}

TEST_CASE("a sweep expands to the cartesian product, first key outermost", "[scenario]") {
  const std::string path = fixture("good/sweep.yaml");
  const ScenarioFile file = load_scenario_file(path);
  CHECK(file.swept);
  REQUIRE(file.rows.size() == 6);
  const int threads[] = {1, 1, 2, 2, 4, 4};
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    const Scenario& s = file.rows[i];
    INFO("row " << i);
    const bool ttas = i % 2 == 1;
    CHECK(s.params == std::vector<std::pair<std::string, std::string>>{{"workload.threads", std::to_string(threads[i])},
                                                                       {"design.spinlock", ttas ? "ttas" : "ticket"},
                                                                       {"workload.cpus", "2"}});
    CHECK(s.workload.get<LockCounterParams>().threads == threads[i]);
    CHECK(s.workload.get<LockCounterParams>().lock == (ttas ? SpinlockKind::ttas : SpinlockKind::ticket));
    CHECK(s.workload.get<LockCounterParams>().cpus == 2);  // a key the sweep added
    CHECK(s.workload.get<LockCounterParams>().iterations == 5);
    CHECK(s.path == path);
  }

  // A row by its values, in any order.
  const Scenario row =
      load_scenario_row(path, {{"design.spinlock", "ttas"}, {"workload.cpus", "2"}, {"workload.threads", "4"}});
  CHECK(row.workload.get<LockCounterParams>().threads == 4);
  CHECK(row.design.spinlock == SpinlockKind::ttas);
  CHECK_THROWS_WITH(load_scenario_row(path, {{"workload.threads", "3"}}),
                    Catch::StartsWith(path + ": no row of the scenario has workload.threads=3"));
  CHECK(load_scenario_row(fixture("good/defaults.yaml"), {}).name == "smallest scenario");
}

TEST_CASE("bad scenarios fail at the line and column of the mistake", "[scenario]") {
  check_bad_cases({
      {"syntax.yaml", 3, 7, "end of map flow not found"},
      {"unknown_key_op.yaml", 6, 34, "unknown key 'ordr' in load (expected one of: var, into, order)"},
      {"unknown_top_key.yaml", 4, 1, "unknown key 'stratgy' in scenario (expected one of: name, description,"},
      {"wrong_type.yaml", 3, 9, "cpus: expected an integer, got 'four'"},
      {"unknown_preset.yaml", 2, 19, "unknown machine preset 'cray-1' (known presets: flat, nehalem-2s"},
      {"unknown_register.yaml", 7, 23, "unknown register 'r9' in thread t0"},
      {"unknown_lock.yaml", 7, 17, "unknown lock 'M' (declared: L)"},
      {"rmw_plain.yaml", 8, 26, "x is a plain variable: only load and store"},
      {"futex_not_word.yaml", 7, 27, "f is not a futex word: declare it as {f: {kind: futex}}"},
      {"futex_init.yaml", 3, 13, "variable 'f': a futex word holds 32 bits, 4294967296 does not fit"},
      {"futex_design.yaml", 2, 26, "unknown futex design 'linux-2.6'"},
      {"futex_private_buckets_pow2.yaml", 3, 38, "private_buckets: a power of two"},
      {"futex_private_buckets_sizing.yaml", 3, 38, "it needs `sizing: private`"},
      {"futex_keys_kernel.yaml", 4, 48, "colliding keys need one of our futex tables, not 'kernel'"},
      {"futex_keys_kind.yaml", 4, 55, "unknown keys kind 'clashing' (expected one of: default, colliding)"},
      {"order_on_plain.yaml", 7, 41, "x is a plain variable"},
      {"expect_unchecked.yaml", 4, 21, "'mutual_exclusion' is not among the checked properties (deadlock)"},
      {"cpu_range.yaml", 6, 21, "cpu: 2 is out of range (0..1)"},
      {"sweep_value.yaml", 6, 22, "threads: 0 is out of range (1..1024)"},
      {"sweep_parent.yaml", 5, 3, "cannot sweep 'name.threads': 'name' is not a map"},
      {"sweep_inserted_key.yaml", 5, 3, "unknown key 'thread' in workload"},
      {"memory_model.yaml", 2, 15, "unknown memory model 'pso' (supported: sc, tso)"},
      {"both_workloads.yaml", 3, 1, "'threads' belongs to thread programs"},
      {"no_workload.yaml", 1, 1, "missing the workload"},
      {"duplicate_thread.yaml", 4, 12, "duplicate thread name 't0'"},
      {"duplicate_key.yaml", 2, 44, "duplicate key 'threads' in workload"},
      {"program_work_cap.yaml", 4, 3,
       "the threads can run more than 100000000 ops in one execution, all together (122000002)"},
      {"machine_cost_too_large.yaml", 2, 42, "rmw_ns: 18446744073709551615 is out of range (0..1000000000)"},
      {"strategy_seed_on_dfs.yaml", 3, 23, "seed applies to the timed, random and pct strategies only"},
      {"strategy_preemption_bound_on_dfs.yaml", 3, 23, "preemption_bound applies to the bounded strategy only"},
      {"expr_syntax.yaml", 7, 29, "expected an operand, got ')'"},
      {"forall_unknown.yaml", 8, 34, "unknown thread 't1'"},
      {"mutex_on_program.yaml", 4, 24,
       "mutual_exclusion is a property of the lock-counter workload only, not of thread programs"},
      {"deep_expr.yaml", 5, 352, "more than 64 operands"},
      {"exists_and_forall.yaml", 6, 36, "property 'both': give forall or exists, not both"},
      {"exists_expect_pass.yaml", 7, 9, "exists conditions (seen) reaches them or not, so it never passes"},
      {"exists_expect_unknown.yaml", 7, 21, "'unseen' is not an exists condition of this scenario (exists "},
      {"exists_expect_violation.yaml", 8, 21, "'seen' is an exists condition, which is reached, not violated"},
      {"exists_unknown_leaf.yaml", 6, 41, "exists: thread t0 has no register 'r7'"},
      {"expect_two_keys.yaml", 8, 31, "expect: one outcome at a time"},
      {"expect_unreachable_builtin.yaml", 6, 23, "'lost_wakeup' is not an exists condition"},
      {"mutex_on_workload.yaml", 2, 17, "design.mutex: futex mutexes are the locks of thread programs"},
      {"mutex_unknown.yaml", 2, 17,
       "unknown mutex 'mutex4' (expected one of: simple, mutex2, mutex3, forgetful, glibc-robust-2.24, "
       "glibc-robust-2.25)"},
      {"mutex_and_spinlock.yaml", 2, 25, "give spinlock or mutex"},
      {"lost_wakeup_misspelled.yaml", 5, 24, "unknown property 'lost_wakeups'"},
      {"ccbench_owned_on_mesif.yaml", 3, 34, "state: owned needs a machine whose protocol is MOESI"},
      {"ccbench_shared_one_holder.yaml", 3, 61, "holders: a line shared takes two CPUs at least"},
      {"ccbench_measurer_holds.yaml", 3, 73, "cpus: CPU 0 holds the line; the operation is timed from another CPU"},
      {"ccbench_unknown_op.yaml", 3, 48, "op: 'xadd' is not load, store, cas, fai, tas or swap"},
      {"c2c_cpu_range.yaml", 3, 33, "cpus: 48 is out of range (0..47)"},
      {"futex_lock_tas.yaml", 3, 44, "lock: a futex bucket's lock is ticket, ttas or mcs"},
      {"condvar_no_mutex.yaml", 3, 11, "condvars wait with futex mutexes: give `design: {mutex: KIND}`"},
      {"condvar_two_locks.yaml", 12, 36, "condvar 'C' is waited on with lock 'M' elsewhere: one condvar, one lock"},
      {"condvar_unknown.yaml", 8, 22, "unknown condvar 'D' (declared: C)"},
      {"condvar_kind_unknown.yaml", 2, 34, "unknown condvar 'glibc-2.41' (expected one of: sequence, glibc-2.25,"},
      {"may_die_not_bool.yaml", 4, 14, "may_die: expected true or false, got"},
      {"futex_wait_timeout_not_bool.yaml", 6, 50, "timeout: expected true or false, got '10'"},
      {"condvar_robust_mutex.yaml", 4, 11,
       "condvars wait with a mutex they lock without a thread id; design.mutex "
       "glibc-robust-2.25 is robust"},
  });
}

TEST_CASE("exists conditions, futex mutexes and the new built-in properties", "[scenario]") {
  const Scenario s = load_one("good/program_exists.yaml");
  const program::Program& p = *s.workload.get<std::shared_ptr<const program::Program>>();
  CHECK(p.mutex == usync::MutexKind::mutex2);
  CHECK(p.uses_futex_table());
  REQUIRE(p.forall.size() == 1);
  CHECK(p.forall[0].property == "counted");
  REQUIRE(p.exists.size() == 1);
  CHECK(p.exists[0].property == "t1_first");
  CHECK(p.exists[0].expr.text == "t1.r0 == 0");
  CHECK(s.properties == std::vector<std::string>{"deadlock", "lost_wakeup", "data_race", "counted", "t1_first"});
  CHECK(s.expect.kind == Expectation::Kind::reachable);
  CHECK(s.expect.property == "t1_first");
  CHECK(exists_conditions(s.workload) == std::vector<std::string>{"t1_first"});
}

TEST_CASE("a missing scenario file names the path", "[scenario]") {
  CHECK_THAT(error_of("no/such/scenario.yaml"), Catch::StartsWith("no/such/scenario.yaml: cannot open"));
}

TEST_CASE("expressions follow C precedence", "[scenario]") {
  CHECK(eval("1 + 2 * 3") == 7);
  CHECK(eval("(1 + 2) * 3") == 9);
  CHECK(eval("10 - 4 - 3") == 3);     // left associative
  CHECK(eval("1 << 2 + 1") == 8);     // + binds tighter than <<
  CHECK(eval("1 | 6 ^ 3 & 2") == 5);  // & then ^ then |: 1 | (6 ^ (3 & 2))
  CHECK(eval("2 < 3 == 1") == 1);
  CHECK(eval("a * -b") == -15);
  CHECK(eval("!c + ~0") == 0);
  CHECK(eval("-7 % 2") == -1);
  CHECK(eval("0xff & 0X0f") == 15);
  CHECK(eval("0xffffffffffffffff") == -1);
  CHECK(eval("true && false || a == 5") == 1);
  CHECK(eval("a >= b && b > c && c <= 0 && a != b") == 1);
  CHECK(eval("a / b + a % b") == 3);
}

TEST_CASE("expression errors point into the text", "[scenario]") {
  CHECK(expr_error_offset("") == 0);
  CHECK(expr_error_offset("a +") == 3);
  CHECK(expr_error_offset("a + zz") == 4);
  CHECK(expr_error_offset("(a + b") == 6);
  CHECK(expr_error_offset("a b") == 2);
  CHECK(expr_error_offset("a = b") == 2);
  CHECK(expr_error_offset("a + $") == 4);
  CHECK(expr_error_offset("12ab") == 0);
  CHECK(expr_error_offset("99999999999999999999") == 0);
  CHECK(expr_error_offset("a.b") == 0);
}

TEST_CASE("expressions fit the evaluator's stack", "[scenario]") {
  // n leaves nested to the right keep n operands pending at once.
  auto nested = [](std::size_t leaves) {
    std::string text = "1";
    for (std::size_t i = 1; i < leaves; ++i) text = "1 + (" + text + ")";
    return text;
  };
  CHECK(eval(nested(program::kMaxExprDepth)) == static_cast<std::int64_t>(program::kMaxExprDepth));
  CHECK_THROWS_AS(eval(nested(program::kMaxExprDepth + 1)), ExprError);
  // Long left-associative chains need two slots, whatever their length.
  std::string chain = "1";
  for (int i = 0; i < 500; ++i) chain += " + 1";
  CHECK(eval(chain) == 501);
  // Deep parentheses do not grow the evaluation stack, but are bounded for the parser.
  const std::string parens = std::string(kMaxExprNesting + 1, '(') + "1" + std::string(kMaxExprNesting + 1, ')');
  CHECK_THROWS_WITH(eval(parens), Catch::Contains("nested more than"));
}

TEST_CASE("integer fields are parsed strictly", "[scenario]") {
  const yaml::Source src("inline.yaml");
  const YAML::Node doc = YAML::Load("{a: 12, b: 0x1F, c: -3, d: 1.5, e: +4, f: 1e3, g: 0x, h: 99999999999999999999}");
  const yaml::Map m(src, doc, "test", {"a", "b", "c", "d", "e", "f", "g", "h"});
  CHECK(m.integer_or("a", 0, 100, 0) == 12);
  CHECK(m.integer_or("b", 0, 100, 0) == 31);
  CHECK(m.integer_or("c", -10, 10, 0) == -3);
  CHECK_THROWS_WITH(m.integer_or("c", 0, 10, 0), "inline.yaml:1:21: c: -3 is out of range (0..10)");
  for (const char* key : {"d", "e", "f", "g"})
    CHECK_THROWS_WITH(m.integer_or(key, 0, 100, 0), Catch::Contains("expected an integer"));
  CHECK_THROWS_WITH(m.unsigned_or("h", 0, ~std::uint64_t{0}, 0), Catch::Contains("out of range"));
  CHECK(yaml::word(src, YAML::Load("-1"), "init") == ~std::uint64_t{0});
  CHECK(yaml::word(src, YAML::Load("18446744073709551615"), "init") == ~std::uint64_t{0});
  CHECK_THROWS_AS(yaml::word(src, YAML::Load("-9223372036854775809"), "init"), ScenarioError);
  CHECK_THROWS_WITH(m.required("zz"), Catch::Contains("not declared"));  // a bug in the caller, not the file
}

TEST_CASE("a workload's own property can be named in a scenario", "[scenario]") {
  // counter-sharing declares lost_update (its registry row); a scenario may ask for it.
  const Scenario s = load_one("good/counter_sharing_lost_update.yaml");
  CHECK(s.properties == std::vector<std::string>{"lost_update", "deadlock"});
  const std::vector<std::string> names = builtin_properties();
  CHECK(std::count(names.begin(), names.end(), "lost_update") == 1);
  CHECK(std::count(names.begin(), names.end(), "deadlock") == 1);  // listed once though many rows declare it
}

TEST_CASE("the properties come from one table, which every registry row and the docs follow", "[scenario]") {
  // Every name is declared once, and builtin_properties() is the table in its order.
  std::vector<std::string> table;
  for (const PropertyInfo& p : kProperties) {
    CHECK(std::count(table.begin(), table.end(), std::string(p.name)) == 0);
    table.emplace_back(p.name);
  }
  CHECK(builtin_properties() == table);
  // A row lists only declared properties; each property scoped to its workloads is some row's.
  for (const WorkloadKindInfo& row : workload_kind_table())
    for (const std::string& name : row.properties) {
      INFO(row.name << " lists " << name);
      const PropertyInfo* p = find_property(name);
      REQUIRE(p != nullptr);
      CHECK(p->by_default);  // an opt-in property (data_race) is no row's default
    }
  for (const PropertyInfo& p : kProperties) {
    if (p.scope != PropertyScope::own) continue;
    bool listed = false;
    for (const WorkloadKindInfo& row : workload_kind_table())
      listed = listed || std::find(row.properties.begin(), row.properties.end(), p.name) != row.properties.end();
    INFO(p.name);
    CHECK(listed);
  }
  // docs/scenarios.md's table has one row per property, as the table says it.
  std::ifstream docs(std::string(LOCKSTEP_SOURCE_DIR) + "/docs/scenarios.md");
  const std::string text((std::istreambuf_iterator<char>(docs)), std::istreambuf_iterator<char>());
  for (const PropertyInfo& p : kProperties) {
    const std::string line = fmt::format("| `{}` | {} | {} |", p.name, p.checked_for, p.violated_when);
    INFO(line);
    CHECK(text.find(line) != std::string::npos);
  }
  // A property only one workload reports leaves its name free for final conditions.
  const std::vector<std::string> fixed = fixed_properties();
  CHECK(std::count(fixed.begin(), fixed.end(), "lost_update") == 0);
  CHECK(std::count(fixed.begin(), fixed.end(), "deadlock") == 1);
}
