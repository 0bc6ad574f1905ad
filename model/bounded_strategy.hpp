// `bounded`: every execution whose schedule stays within a preemption bound (Musuvathi and
// Qadeer, "Iterative context bounding for systematic testing of multithreaded programs",
// PLDI 2007) or a delay bound (Emmi, Qadeer and Rakamaric, "Delay-bounded scheduling",
// POPL 2011), explored depth first without partial-order reduction. Most concurrency bugs
// need only two or three preemptions, and a counterexample found under bound b has at most
// b of them, which is why minimization searches with growing bounds.
//
// Preemption: switching away from a thread that could have gone on. Delay: deviating from a
// deterministic round-robin scheduler (which keeps the current thread until it blocks, then
// takes the next thread by id); taking the k-th thread after the one it would pick costs k.
// Under x86-TSO each store buffer is a process of its own (as in Nidhugg): letting a
// buffered store reach memory while the running thread could go on is a preemption (and a
// delay), so the cheapest schedules keep stores buffered as long as possible, which is
// where the memory model's surprises are; an SC-like schedule costs a preemption per drain.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "model/exploration_strategy.hpp"

namespace lockstep::model {

enum class BoundKind : std::uint8_t { preemption, delay };

class BoundedStrategy final : public ExplorationStrategy {
 public:
  struct Option {
    std::uint32_t index = 0;  // into the candidates
    unsigned cost = 0;
  };
  struct Node {
    std::vector<Option> options;  // cheapest first
    std::size_t taken = 0;
    unsigned spent_before = 0;
  };
  // A subtree of the search: the choices down to one node, fixed (parallel search).
  struct Subtree {
    std::vector<Node> nodes;
  };

  BoundedStrategy(BoundKind kind, unsigned bound) : kind_(kind), bound_(bound) {}
  // Explores only the executions below `subtree`.
  BoundedStrategy(BoundKind kind, unsigned bound, Subtree subtree);
  // Splitting for a parallel search: an execution that reaches its `branchings`-th node with
  // more than one option is abandoned there and the subtree through the option it would
  // take becomes `split()`; backtracking then moves on to the node's next option.
  void split_after(unsigned branchings) { split_after_ = branchings; }
  // The subtree the last execution was abandoned at, if it was.
  std::optional<Subtree> take_split() { return std::exchange(split_, std::nullopt); }
  std::string name() const override { return "bounded"; }
  // Observes every step, so a step with one candidate still tells it who runs.
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t) override;
  std::size_t pick(std::span<const sim::Candidate> candidates) override;
  bool next(const sim::ExecutionResult& last) override;
  bool exhaustive() const override { return exhausted_; }
  std::string bounds() const override;

 private:
  std::vector<Option> options_for(std::span<const sim::Candidate> candidates) const;

  BoundKind kind_;
  unsigned bound_;
  sim::EventLog log_;
  std::vector<Node> stack_;
  std::size_t frozen_ = 0;    // nodes the search may not backtrack into (a subtree's root path)
  unsigned split_after_ = 0;  // 0: no splitting
  unsigned branchings_ = 0;   // in this execution
  std::optional<Subtree> split_;
  std::size_t depth_ = 0;
  unsigned spent_ = 0;
  sim::ThreadId last_ = sim::kNoThread;  // the thread of the last step (drains do not count)
  bool exhausted_ = false;
};

}  // namespace lockstep::model
