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
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "model/causal_order.hpp"
#include "model/exploration_strategy.hpp"

namespace lockstep::model {

class DporStrategy final : public ExplorationStrategy {
 public:
  template <typename T>
  using Small = boost::container::small_vector<T, 4>;
  struct Node;
  struct Asleep;
  // A subtree of the search (parallel dfs): the nodes from the root down to the subtree's
  // root, whose last node's chosen branch is the subtree; none of them is backtracked into.
  struct Subtree {
    std::vector<Node> nodes;
    // Per root-path node, choices its owner already tries or has asleep there when it hands
    // the subtree out. The owner's backtrack and sleep sets only grow until the subtree is
    // merged, so a request naming one of these is a no-op there: the subtree need not build
    // it (reverse). A hint for speed only, left out of the unit's encoding (its key must not
    // depend on timing): a subtree without it, run from a unit, requests the same and more.
    std::vector<Small<sim::Choice>> covered;
  };
  // A race whose first step lies above a subtree: the state there must try one of
  // `initials` unless one is already tried or asleep. Whoever owns that node decides.
  struct Request {
    std::uint32_t node = 0;
    std::vector<sim::Choice> initials;
  };

  DporStrategy() = default;
  explicit DporStrategy(Subtree subtree);

  std::string name() const override { return "dfs"; }
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t) override {
    depth_ = 0;
    ++executions_;
  }
  std::size_t pick(std::span<const sim::Candidate> candidates) override;
  bool next(const sim::ExecutionResult& last) override;
  bool exhaustive() const override { return exhausted_; }
  std::uint64_t internal_errors() const override { return internal_errors_; }
  // The stack of the current branch (a whole search's: not a subtree's, whose requests
  // belong to its parent).
  std::optional<nlohmann::json> save_state() const override;
  void restore_state(const nlohmann::json& state) override;
  // Races after a violation still decide which executions to try (Scheduler's comment).
  bool continue_after_violation() const override { return true; }

  // --- parallel dfs (model/dpor_parallel.cpp) ---
  enum class Next : std::uint8_t { run, spawn, done };
  // Analyses the last execution and backtracks: `run` another execution, `done`, or `spawn`:
  // the node at spawn_node() (above the depth given here) has branches left, which the
  // caller explores as subtrees (take_branch), then calls leave_spawn_node().
  Next advance();
  // advance() without analysing the last execution again (after a spawn node's subtrees).
  Next backtrack();
  // advance() in two halves: the last execution's races (requests and backtrack points),
  // then backtrack().
  void analyse();
  // After analyse(): the index of the k-th node (from 1) of the current branch with a
  // branch still to try, or of the deepest such node when there are fewer (the branch's
  // depth when there is none). Where the search will branch: the parallel search splits
  // there, which under TSO can be far below the first nodes with several choices (the
  // first steps of every thread are stores into its own buffer, independent of the rest).
  std::size_t pending_depth(unsigned k) const;
  void spawn_above(std::size_t depth) { spawn_above_ = depth; }
  std::size_t spawn_node() const { return size_ - 1; }
  // The next untried, awake branch at the spawn node, or none; the branch then counts as
  // tried (asleep, with the accesses of its first step) for the ones after it.
  // `first_step` runs the subtree's first step and returns what it touched.
  using FirstStep = std::function<std::vector<sim::StepAccess>(const Subtree&)>;
  std::optional<Subtree> take_branch(const FirstStep& first_step);
  void leave_spawn_node() { --size_; }
  // After analyse(), for node i of the current branch above the spawn depth (and below the
  // frozen root path): the next branch the search will take there when it backtracks, handed
  // out now, with the sleep set it will have then (what is asleep at i, the branch being
  // explored through i, and the branches handed out before it). The caller explores it as a
  // subtree while this strategy goes on below i; when it backtracks to i, it returns `spawn`
  // (even with no branch left to take) so that the caller merges those subtrees in order.
  std::optional<Subtree> take_early(std::size_t i, const FirstStep& first_step);
  // After analyse(): the shallowest node of the current branch at or below `from` (and below
  // the frozen root path) with a branch neither taken nor handed out, when a deeper node has
  // one too (the deepest is where this search goes next itself). Splitting on demand
  // (dpor_parallel.cpp) hands that branch out with take_at, whatever the spawn depth: the
  // node then spawns when the search backtracks to it, as take_early's nodes do.
  // With `min_runs`: none unless that node's current branch has run that many executions
  // already (a deeper node's started later and has run fewer): the size of the branches
  // there, as far as this search knows, so that a split is worth what it costs.
  std::optional<std::size_t> shallowest_untaken(std::size_t from, std::uint64_t min_runs = 0) const;
  std::optional<Subtree> take_at(std::size_t i, const FirstStep& first_step);
  std::size_t frozen_depth() const { return frozen_; }
  std::size_t depth() const { return size_; }
  std::size_t spawn_depth() const { return spawn_above_; }
  // A subtree's request for a node this strategy owns (at or below its own root).
  void apply(const Request& r);
  // A subtree's request for a node above this strategy's own root: passed on (requests()),
  // unless an equal one already was.
  void forward(const Request& r);
  std::size_t frozen() const { return frozen_; }
  // Requests for nodes above this strategy's subtree, in the order a sequential search
  // would have met them.
  std::vector<Request>& requests() { return requests_; }
  // A subtree's search between executions, ready to run the next (a checkpoint of a running
  // unit, model/unit_cache.hpp): its stack, root path and requests so far. Which requests
  // were made is not kept: a resumed search may make one again, a no-op wherever applied.
  nlohmann::json save_subtree_state() const;
  // The current branch's choices, as a subtree's root path (to replay it).
  Subtree branch() const { return prefix(size_); }
  static DporStrategy restore_subtree_state(const nlohmann::json& state);

  struct Asleep {
    sim::Choice choice;
    Small<sim::StepAccess> accesses;  // of the step it would take
  };
  // The sleepers of `parent` that stay asleep across `step` (which touched `done`), appended
  // to `child`: a sleeping choice stays asleep across a step of another process it does not
  // depend on. A sleeping load that its thread's buffer answers stays asleep across that
  // store's drain (they commute: it reads the same store either way), and from then on reads
  // it from memory: its footprint becomes the store's location, which later writes of other
  // processes depend on. The search's own rule, and the estimator's (model/search_estimate.hpp).
  template <class From, class To>
  static void keep_asleep(const From& parent, const sim::Choice& step, std::span<const sim::StepAccess> done,
                          To& child) {
    const std::uint32_t by = process_of(step);
    const bool drain = step.kind == sim::Choice::Kind::drain;
    for (const Asleep& a : parent) {
      if (process_of(a.choice) == by || conflicting({a.accesses.data(), a.accesses.size()}, done)) continue;
      Asleep& kept = child.emplace_back(a);
      if (drain && a.choice.thread == step.thread) follow_drain({kept.accesses.data(), kept.accesses.size()}, done);
    }
  }
  struct Node {
    Small<sim::Choice> enabled;
    Small<sim::Choice> backtrack;  // to try here, in order; includes what was tried
    Small<Asleep> sleep;
    // Branches handed out early (take_early) while the chosen one is still explored: they
    // join `sleep` when the search backtracks here, as take_branch's would.
    Small<Asleep> early;
    std::uint32_t scanned = 0;  // backtrack entries before this are taken (take_early)
    sim::Choice chosen;
    bool has_chosen = false;
    std::uint64_t since = 0;  // executions_ before the chosen branch's first execution
  };

 private:
  static bool asleep(const Node& n, const sim::Choice& c);
  static bool handed_out(const Node& n, const sim::Choice& c);
  Subtree branch_at(std::size_t i, const sim::Choice& c) const;
  void reverse(const CausalOrder& order, const Race& race);
  void add_initial(Node& n, std::span<const sim::Choice> initials);
  void internal_error(const char* what);
  bool first_request(std::uint32_t node, std::span<const sim::Choice> initials);
  Subtree prefix(std::size_t n) const;
  nlohmann::json encode_stack() const;

  // Nodes 0 .. depth of the current branch; nodes past size_ are kept only for their
  // storage, so a search allocates little after its first executions.
  std::vector<Node> stack_;
  std::size_t size_ = 0;
  std::size_t frozen_ = 0;                   // nodes of the subtree's root path
  std::size_t spawn_above_ = 0;              // branches at nodes above this are left to the caller
  std::vector<Small<sim::Choice>> covered_;  // Subtree::covered, for the nodes above frozen_
  std::vector<Request> requests_;
  // Requests made, by node and initials (first_request): packed in 64 bits when they fit.
  std::unordered_set<std::uint64_t> requested_small_;
  std::unordered_set<std::string> requested_;
  sim::EventLog log_;
  CausalOrder order_;
  std::vector<Race> races_;
  std::vector<std::uint32_t> notdep_;  // scratch for reverse()
  std::size_t depth_ = 0;
  std::uint64_t executions_ = 0;  // begun by this strategy
  std::uint64_t internal_errors_ = 0;
  bool exhausted_ = false;
};

}  // namespace lockstep::model
