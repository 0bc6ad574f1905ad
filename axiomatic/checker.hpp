// The SMT strategy's questions about a thread program (docs/model-checking.md, "The SMT
// strategy"): is an `exists` condition reachable, can an assert fail or a `while` loop run
// past its bound, does a `forall` condition hold, and which final states are reachable.
// Each is one satisfiability query over the program's events (event_graph.hpp) and the
// memory model's axioms (memory_model.hpp); a satisfying model comes with a plan that the
// engine can follow to reach the same state (witness_plan.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "axiomatic/memory_model.hpp"
#include "axiomatic/witness_plan.hpp"
#include "core/workloads/program.hpp"

namespace lockstep::axiomatic {

struct SmtOptions {
  Model model = Model::sc;
  unsigned unroll = 0;        // `while` iterations encoded (0: each loop's own bound)
  bool all_outcomes = false;  // also list every reachable final state
  std::uint64_t max_outcomes = 100'000;
};

// A final state, or the checks that failed on the way (then the state is not one).
struct Outcome {
  std::vector<std::uint64_t> variables;
  std::vector<std::vector<std::int64_t>> registers;  // per thread
  std::vector<std::string> failed;                   // "FILE:LINE:COL" of each failed assert or loop bound
};

struct Answer {
  std::string property;            // the condition's, or "assertion", "bound_exceeded"
  std::string kind;                // "exists", "forall", "property"
  std::string text;                // the condition, for messages
  bool found = false;              // exists: reachable; forall, property: violated
  std::optional<Outcome> outcome;  // the model's final state, when found
  std::vector<PlanStep> plan;      // how the engine gets there, when found
};

struct SmtResult {
  std::vector<Answer> answers;                       // forall, then properties (assertion, bound_exceeded), then exists
  std::vector<Outcome> outcomes;                     // all_outcomes: every reachable one (up to max_outcomes)
  std::vector<std::vector<PlanStep>> outcome_plans;  // all_outcomes: how the engine reaches each
  bool outcomes_complete = true;                     // false: stopped at max_outcomes
  // A division by zero some execution reaches: the program is in error (the interpreter
  // stops there); the answers above leave those executions out.
  std::optional<std::string> division_by_zero;
  bool complete = true;  // no `while` loop was cut by the unrolling
  unsigned unroll = 0;
  std::size_t events = 0;
  std::uint64_t queries = 0;  // satisfiability checks made
  double seconds = 0;
};

// Throws UnsupportedOp for an op it cannot encode.
SmtResult check_program(const program::Program& prog, const SmtOptions& options);

}  // namespace lockstep::axiomatic
