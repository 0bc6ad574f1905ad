#include "axiomatic/checker.hpp"

#include <chrono>
#include <set>

#include <fmt/format.h>

namespace lockstep::axiomatic {

namespace {

class Checker {
 public:
  Checker(const program::Program& prog, const SmtOptions& options)
      : prog_(prog),
        options_(options),
        solver_(ctx_),
        graph_(build_event_graph(ctx_, prog, options.unroll)),
        enc_(encode_memory_model(solver_, graph_, options.model)) {
    // Executions that would need more iterations than the unrolling are not encoded.
    for (const z3::expr& cut : graph_.cut) solver_.add(!cut);
    ok_ = ctx_.bool_val(true);
    for (const ThreadCheck& c : graph_.checks) ok_ = ok_ && !c.fails;
  }

  SmtResult run() {
    const auto start = std::chrono::steady_clock::now();
    SmtResult r;
    r.complete = graph_.complete;
    r.unroll = graph_.unroll;
    r.events = graph_.events.size();
    division(r);
    for (const program::FinalCondition& f : prog_.forall)
      r.answers.push_back(ask(f.property, "forall", f.expr.text, ok_ && no_division_ && !condition(f)));
    std::set<std::string> properties;
    for (const ThreadCheck& c : graph_.checks) properties.insert(c.property);
    for (const char* property : {"assertion", "bound_exceeded"}) {
      if (properties.count(property) == 0) continue;
      z3::expr any = ctx_.bool_val(false);
      for (const ThreadCheck& c : graph_.checks)
        if (c.property == property) any = any || c.fails;
      r.answers.push_back(ask(property, "property", property, any && no_division_));
    }
    for (const program::FinalCondition& f : prog_.exists)
      r.answers.push_back(ask(f.property, "exists", f.expr.text, ok_ && no_division_ && condition(f)));
    if (options_.all_outcomes) all_outcomes(r);
    r.queries = queries_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

 private:
  z3::check_result check(const z3::expr& query) {
    ++queries_;
    z3::expr_vector assumptions(ctx_);
    const z3::expr flag = ctx_.bool_const(fmt::format("query{}", queries_).c_str());
    solver_.add(z3::implies(flag, query));
    assumptions.push_back(flag);
    const z3::check_result result = solver_.check(assumptions);
    if (result == z3::unknown) throw std::runtime_error("smt: the solver gave up: " + solver_.reason_unknown());
    return result;
  }

  // A final condition over the final values of the variables and the threads' registers.
  z3::expr condition(const program::FinalCondition& f) {
    const z3::expr v = encode_expr(
        ctx_, f.expr,
        [this](const program::ExprNode& n) -> z3::expr {
          if (n.op == program::ExprOp::var) return enc_.final_values.at(static_cast<std::size_t>(n.index));
          return graph_.final_registers.at(static_cast<std::size_t>(n.thread)).at(static_cast<std::size_t>(n.index));
        },
        ctx_.bool_val(true), &final_divisions_, f.where);
    return v != ctx_.bv_val(0, 64);
  }

  void division(SmtResult& r) {
    no_division_ = ctx_.bool_val(true);
    for (const DivisionCheck& d : graph_.divisions) {
      no_division_ = no_division_ && !d.by_zero;
      if (!r.division_by_zero && check(d.by_zero) == z3::sat)
        r.division_by_zero = fmt::format("{}: division by zero in '{}'", d.where, d.text);
    }
  }

  Answer ask(const std::string& property, const std::string& kind, const std::string& text, const z3::expr& query) {
    Answer a{property, kind, text, false, std::nullopt, {}};
    // A final condition that divides by zero in some final state: that state is an error.
    z3::expr q = query;
    for (const DivisionCheck& d : final_divisions_) q = q && !d.by_zero;
    final_divisions_.clear();
    if (check(q) != z3::sat) return a;
    const z3::model m = solver_.get_model();
    a.found = true;
    a.outcome = outcome(m);
    a.plan = witness_plan(graph_, enc_, m, options_.model);
    return a;
  }

  Outcome outcome(const z3::model& m) const {
    Outcome o;
    for (const ThreadCheck& c : graph_.checks)
      if (m.eval(c.fails, true).is_true()) o.failed.push_back(c.where);
    for (const z3::expr& v : enc_.final_values) o.variables.push_back(m.eval(v, true).get_numeral_uint64());
    for (const auto& regs : graph_.final_registers) {
      std::vector<std::int64_t> values;
      for (const z3::expr& r : regs) values.push_back(static_cast<std::int64_t>(m.eval(r, true).get_numeral_uint64()));
      o.registers.push_back(std::move(values));
    }
    return o;
  }

  // Every reachable final state: find one, exclude it, again (blocking clauses). A state in
  // which checks failed is the set of checks that failed, whatever the values.
  void all_outcomes(SmtResult& r) {
    solver_.push();  // the blocking clauses go with this scope
    solver_.add(no_division_);
    while (true) {
      if (r.outcomes.size() >= options_.max_outcomes) {
        r.outcomes_complete = false;
        break;
      }
      ++queries_;
      const z3::check_result result = solver_.check();
      if (result == z3::unknown) throw std::runtime_error("smt: the solver gave up: " + solver_.reason_unknown());
      if (result != z3::sat) break;
      const z3::model m = solver_.get_model();
      Outcome o = outcome(m);
      z3::expr same = ctx_.bool_val(true);
      for (const ThreadCheck& c : graph_.checks) same = same && (m.eval(c.fails, true).is_true() ? c.fails : !c.fails);
      if (o.failed.empty()) {
        for (std::size_t v = 0; v < enc_.final_values.size(); ++v)
          same = same && enc_.final_values[v] == ctx_.bv_val(o.variables[v], 64);
        for (std::size_t t = 0; t < graph_.final_registers.size(); ++t)
          for (std::size_t k = 0; k < graph_.final_registers[t].size(); ++k)
            same =
                same && graph_.final_registers[t][k] == ctx_.bv_val(static_cast<std::uint64_t>(o.registers[t][k]), 64);
      }
      solver_.add(!same);
      r.outcome_plans.push_back(witness_plan(graph_, enc_, m, options_.model));
      r.outcomes.push_back(std::move(o));
    }
    solver_.pop();
  }

  const program::Program& prog_;
  SmtOptions options_;
  z3::context ctx_;
  z3::solver solver_;
  EventGraph graph_;
  Encoding enc_;
  z3::expr ok_{ctx_};
  z3::expr no_division_{ctx_};
  std::vector<DivisionCheck> final_divisions_;
  std::uint64_t queries_ = 0;
};

}  // namespace

SmtResult check_program(const program::Program& prog, const SmtOptions& options) {
  return Checker(prog, options).run();
}

}  // namespace lockstep::axiomatic
