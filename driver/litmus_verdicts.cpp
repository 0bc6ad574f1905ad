#include "driver/litmus_verdicts.hpp"

#include <memory>

#include "driver/simulation.hpp"
#include "model/exploration.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::LitmusCondition;
using report::LitmusVerdict;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

using ProgramPtr = std::shared_ptr<const program::Program>;

bool uses_op(const std::vector<program::Op>& ops, program::OpKind kind) {
  for (const program::Op& op : ops)
    if (op.kind == kind || uses_op(op.body, kind) || uses_op(op.else_body, kind)) return true;
  return false;
}

bool uses_op(const program::Program& prog, program::OpKind kind) {
  for (const program::ThreadProgram& t : prog.threads)
    if (uses_op(t.body, kind)) return true;
  return false;
}

// The scenario as the search for one condition sees it: that condition alone is checked (so
// a witness of another, or another property's violation, does not end the search first).
Scenario for_condition(const Scenario& s, const LitmusCondition& c, MemoryModel model) {
  Scenario v = s;
  v.memory_model = model;
  auto prog = std::make_shared<program::Program>(*s.workload.get<ProgramPtr>());
  const auto keep = [&c](std::vector<program::FinalCondition>& list, const char* kind) {
    std::erase_if(list, [&](const program::FinalCondition& f) { return c.kind != kind || f.property != c.property; });
  };
  keep(prog->exists, "exists");
  keep(prog->forall, "forall");
  v.workload.params = ProgramPtr(std::move(prog));
  v.properties = {c.property};
  v.expect = Expectation{};
  v.strategy.minimize = false;  // the verdict is wanted, not a short counterexample
  if (v.strategy.kind == StrategyKind::timed) v.strategy.kind = StrategyKind::dfs;
  return v;
}

LitmusVerdict search(const Scenario& v, const LitmusCondition& c) {
  const std::unique_ptr<sim::CostModel> costs = make_costs(v);
  sim::Engine engine(machine_shape(v), *costs, engine_limits(v));
  const std::unique_ptr<sim::SimWorkload> workload = make_workload(v);
  SimExecutor main(engine, *workload);
  model::ExplorationSetup setup;
  setup.strategy = v.strategy;
  setup.seed = v.strategy.seed;
  setup.max_runs = v.strategy.executions;
  setup.workers = v.strategy.workers;
  setup.executor = &main;
  setup.make_executor = [&v] { return std::make_unique<OwnedSimExecutor>(v); };
  setup.verdict = [&v](const sim::ExecutionResult& r) { return checked_violation(v, r); };
  const model::Exploration e = model::explore(setup);
  LitmusVerdict verdict;
  verdict.memory_model = v.memory_model == MemoryModel::tso ? "tso" : "sc";
  const bool shown = e.outcome.violation.has_value();
  if (c.kind == "exists") {
    verdict.result = shown ? "reachable" : "unreachable";
  } else {
    verdict.result = shown ? "violation" : "pass";
  }
  verdict.exhaustive = e.outcome.exhaustive;
  verdict.strategy = e.strategy;
  verdict.executions = e.outcome.executions;
  verdict.internal_errors = e.outcome.internal_errors;
  return verdict;
}

}  // namespace

std::vector<LitmusCondition> litmus_conditions(const Scenario& s) {
  const program::Program& prog = *s.workload.get<ProgramPtr>();
  std::vector<LitmusCondition> out;
  for (const program::FinalCondition& f : prog.exists) out.push_back({f.property, "exists", f.expr.text, 0, {}, {}});
  for (const program::FinalCondition& f : prog.forall)
    if (reports_property(s, f.property)) out.push_back({f.property, "forall", f.expr.text, 0, {}, {}});
  if (reports_property(s, "assertion") && uses_op(prog, program::OpKind::assert_))
    out.push_back({"assertion", "property", "", 0, {}, {}});
  if (reports_property(s, "bound_exceeded") && uses_op(prog, program::OpKind::while_))
    out.push_back({"bound_exceeded", "property", "", 0, {}, {}});
  // Natively a deadlock or a lost wakeup is a run that never ends, which the watchdog reports.
  const bool can_block = !prog.locks.empty() || prog.uses_futex_table();
  if (reports_property(s, "deadlock") && can_block) out.push_back({"deadlock", "hang", "", 0, {}, {}});
  if (reports_property(s, "lost_wakeup") && prog.uses_futex_table())
    out.push_back({"lost_wakeup", "hang", "", 0, {}, {}});
  return out;
}

std::vector<LitmusVerdict> check_conditions(const Scenario& s, const std::vector<LitmusCondition>& conditions,
                                            MemoryModel model) {
  std::vector<LitmusVerdict> out;
  for (const LitmusCondition& c : conditions) out.push_back(search(for_condition(s, c, model), c));
  return out;
}

}  // namespace lockstep::driver
