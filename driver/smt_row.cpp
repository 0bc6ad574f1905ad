// A row checked by the smt strategy (docs/model-checking.md, "The SMT strategy"): the
// axiomatic checker (axiomatic/) decides the program's conditions; a witness it finds is
// then followed by the engine (WitnessScheduler), its schedule written, and replayed with a
// trace like any counterexample, so that what the solver found is shown by the engine too.
#include <chrono>

#include <fmt/format.h>

#include "axiomatic/checker.hpp"
#include "driver/row_runner.hpp"
#include "driver/smt_outcome_text.hpp"
#include "driver/witness_scheduler.hpp"
#include "model/replay_strategy.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

using report::RowReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

RowReport RowRunner::smt() {
  RowReport report;
  report.strategy = "smt";
  report.seed = seed();
  const auto start = Clock::now();
  const program::Program& prog = *s_.workload.get<std::shared_ptr<const program::Program>>();
  axiomatic::SmtOptions options;
  options.model = s_.memory_model == MemoryModel::tso ? axiomatic::Model::tso : axiomatic::Model::sc;
  options.unroll = s_.strategy.unroll;
  options.all_outcomes = options_.all_outcomes;
  const axiomatic::SmtResult r = axiomatic::check_program(prog, options);
  if (r.division_by_zero) throw ScenarioError(*r.division_by_zero);

  auto& smt = report.smt;
  smt.present = true;
  smt.memory_model = s_.memory_model == MemoryModel::tso ? "tso" : "sc";
  smt.unroll = r.unroll;
  smt.complete = r.complete;
  smt.events = r.events;
  smt.queries = r.queries;
  smt.solver_s = r.seconds;
  for (const axiomatic::Outcome& o : r.outcomes) smt.outcomes.push_back(smt_outcome_text(prog, o));
  smt.outcomes_complete = r.outcomes_complete;
  report.executions = r.queries;
  report.exhaustive = r.complete;
  if (!r.complete) report.bounds = fmt::format("while loops unrolled {} times", r.unroll);

  // Violations first (forall, assertion, bound_exceeded), then exists witnesses, as the
  // answers come; a property the scenario does not check is not a verdict.
  const axiomatic::Answer* found = nullptr;
  for (const axiomatic::Answer& a : r.answers) {
    if (a.found && (a.kind == "exists" || reports_property(s_, a.property))) {
      found = &a;
      break;
    }
  }
  report.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (found == nullptr) {
    report.result = "pass";
    return report;
  }

  // The engine follows the model's plan; it must reach the same verdict.
  WitnessScheduler witness(found->plan);
  const sim::ExecutionResult run = engine_.run(*workload_, witness, nullptr, 0);
  const std::optional<sim::Violation> seen = checked_violation(s_, run);
  if (!witness.failure().empty() || !seen || seen->property != found->property) {
    report.result = "violation";
    report.property = found->property;
    report.internal_errors = 1;
    const std::string engine_saw = !witness.failure().empty() ? witness.failure()
                                   : seen ? fmt::format("the engine reached {} instead", seen->property)
                                          : std::string("the engine reached no violation or witness");
    report.message = fmt::format(
        "the solver's model for {} ({}) has no schedule in the engine: {}; one of the two engines is wrong",
        found->property, found->outcome ? smt_outcome_text(prog, *found->outcome) : std::string("?"), engine_saw);
    return report;
  }
  report.result = "violation";  // judge() names an exists witness `reachable`
  report.property = seen->property;
  report.message = seen->message;
  write_schedule(report, run.schedule, sim::EngineMode::explore, 0, "smt");
  model::ReplayStrategy replay(run.schedule, sim::EngineMode::explore);
  finish(report, replay, 0, seen);
  smt.witness_replayed = true;
  report.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace lockstep::driver
