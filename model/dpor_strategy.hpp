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

#include <boost/container/small_vector.hpp>

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
  template <typename T>
  using Small = boost::container::small_vector<T, 4>;
  struct Asleep {
    sim::Choice choice;
    Small<sim::StepAccess> accesses;  // of the step it would take
  };
  struct Node {
    Small<sim::Choice> enabled;
    Small<sim::Choice> backtrack;  // to try here, in order; includes what was tried
    Small<Asleep> sleep;
    sim::Choice chosen;
    bool has_chosen = false;
  };
  static bool asleep(const Node& n, const sim::Choice& c);
  void wake_up(const Node& parent, const sim::StepRecord& step, Node& child) const;
  void reverse(const CausalOrder& order, const Race& race);

  // Nodes 0 .. depth of the current branch; nodes past size_ are kept only for their
  // storage, so a search allocates little after its first executions.
  std::vector<Node> stack_;
  std::size_t size_ = 0;
  sim::EventLog log_;
  CausalOrder order_;
  std::vector<Race> races_;
  std::vector<std::uint32_t> notdep_;  // scratch for reverse()
  std::size_t depth_ = 0;
  bool exhausted_ = false;
};

}  // namespace lockstep::model
