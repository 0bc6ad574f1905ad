// `dfs`: exhaustive stateless search with source-set dynamic partial-order reduction and
// sleep sets (Abdulla, Aronis, Jonsson and Sagonas, "Optimal dynamic partial order
// reduction", POPL 2014, Algorithm 1 "Source-DPOR"; races found on each complete execution,
// as Nidhugg does).
//
// Each execution re-runs the scenario from its start. The strategy keeps a stack with one
// node per step of the current execution: which choices were enabled, which it must still
// try there (the backtrack set) and which are asleep (already covered by an explored
// sibling and independent of every step since). After an execution it finds the races in
// it (model/causal_order.hpp); for each race it makes sure that the state before the first
// step will also try some process that can start the reversed order (an *initial* of the
// steps that do not depend on the first one, followed by the second). Then it backtracks to
// the deepest node with an untried, awake choice. A new execution that reaches a state
// where every enabled choice sleeps is redundant and is abandoned (counted as pruned).
//
// Executions explored: at least one per Mazurkiewicz trace (equivalence class of
// executions that order every pair of dependent steps alike), often exactly one; source
// sets with sleep sets may still abandon some redundant prefixes.
#pragma once

#include <cstdint>
#include <vector>

#include "model/causal_order.hpp"
#include "model/exploration_strategy.hpp"

namespace lockstep::model {

class DporStrategy final : public ExplorationStrategy {
 public:
  std::string name() const override { return "dfs"; }
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t) override { depth_ = 0; }
  std::size_t pick(std::span<const sim::Candidate> candidates) override;
  bool next(const sim::ExecutionResult& last) override;
  bool exhaustive() const override { return exhausted_; }

 private:
  struct Asleep {
    sim::Choice choice;
    std::vector<sim::StepAccess> accesses;  // of the step it would take
  };
  struct Node {
    std::vector<sim::Choice> enabled;
    std::vector<sim::Choice> backtrack;  // to try here, in order; includes what was tried
    std::vector<Asleep> sleep;
    sim::Choice chosen;
    bool has_chosen = false;
  };
  static bool asleep(const Node& n, const sim::Choice& c);
  std::vector<Asleep> wake_up(const Node& parent, const sim::StepRecord& step) const;
  void reverse(const CausalOrder& order, const Race& race);

  std::vector<Node> stack_;
  sim::EventLog log_;
  std::vector<Race> races_;
  std::size_t depth_ = 0;
  bool exhausted_ = false;
};

}  // namespace lockstep::model
