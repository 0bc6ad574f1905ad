#include "model/bounded_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace lockstep::model {

namespace {

// Branching nodes the first pass goes down before it splits: enough subtrees to keep every
// worker busy while the uneven ones finish.
unsigned split_depth(std::size_t workers) {
  return 2 + static_cast<unsigned>(std::ceil(std::log2(static_cast<double>(workers))));
}

// What one execution contributes, kept until the depth-first merge.
struct Run {
  std::uint64_t steps = 0;
  std::uint64_t memory_ops = 0;
  std::optional<sim::Violation> violation;
  sim::Schedule schedule;
};

struct SubtreeResult {
  std::vector<Run> runs;  // in depth-first order, up to and including its first violation
  bool complete = false;  // explored to its end (or to a violation)
};

// The first pass, in depth-first order: executions that ended above the split depth, and
// subtrees below it.
struct Item {
  std::optional<Run> run;
  std::size_t subtree = 0;
};

Run keep(sim::ExecutionResult&& r, const Verdict& verdict) {
  Run run{r.steps, r.memory_ops, verdict(r), {}};
  if (run.violation) run.schedule = std::move(r.schedule);
  return run;
}

}  // namespace

SearchOutcome search_bounded(BoundKind kind, unsigned bound, const std::vector<Executor*>& executors,
                             const Verdict& verdict, const SearchLimits& limits) {
  if (executors.size() <= 1) {
    BoundedStrategy strategy(kind, bound);
    return search(strategy, *executors.front(), verdict, limits);
  }
  // First pass: on the calling thread.
  std::vector<Item> items;
  std::vector<BoundedStrategy::Subtree> subtrees;
  bool first_pass_complete = false;  // it reached the end of the tree (not the cap)
  {
    BoundedStrategy splitter(kind, bound);
    splitter.split_after(split_depth(executors.size()));
    std::uint64_t complete = 0;
    for (std::uint64_t index = 0; complete < limits.max_runs; ++index) {
      sim::ExecutionResult r = executors.front()->run(splitter, index);
      if (auto subtree = splitter.take_split()) {
        items.push_back(Item{std::nullopt, subtrees.size()});
        subtrees.push_back(std::move(*subtree));
      } else {
        ++complete;
        items.push_back(Item{keep(std::move(r), verdict), 0});
        if (items.back().run->violation) break;  // nothing after it in depth-first order counts
      }
      if (!splitter.next(r)) {
        first_pass_complete = true;
        break;
      }
    }
  }
  // Second pass: the subtrees, shared out; one past a known violation is not started.
  std::vector<SubtreeResult> results(subtrees.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_violation{subtrees.size()};
  auto work = [&](std::size_t w) {
    for (std::size_t s = next.fetch_add(1); s < subtrees.size() && s < first_violation.load(); s = next.fetch_add(1)) {
      BoundedStrategy strategy(kind, bound, subtrees[s]);
      SubtreeResult& out = results[s];
      for (std::uint64_t index = 0; index < limits.max_runs; ++index) {
        sim::ExecutionResult r = executors[w]->run(strategy, index);
        out.runs.push_back(keep(std::move(r), verdict));
        if (out.runs.back().violation) {
          std::size_t seen = first_violation.load();
          while (s < seen && !first_violation.compare_exchange_weak(seen, s)) {
          }
          out.complete = true;
          break;
        }
        if (!strategy.next(r)) {
          out.complete = true;
          break;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < executors.size(); ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();

  // Merge in depth-first order, as the sequential search would have met them.
  SearchOutcome o;
  auto take = [&](Run& run) {
    ++o.executions;
    o.max_depth = std::max(o.max_depth, run.steps);
    o.sim_ops += run.memory_ops;
    if (!run.violation) return false;
    o.violation = std::move(run.violation);
    o.schedule = std::move(run.schedule);
    o.violating_index = o.executions - 1;
    o.violating_steps = run.steps;
    return true;
  };
  for (Item& item : items) {
    if (item.run) {
      if (o.executions == limits.max_runs) return o;
      if (take(*item.run)) return o;
      continue;
    }
    SubtreeResult& sub = results[item.subtree];
    for (Run& run : sub.runs) {
      if (o.executions == limits.max_runs) return o;
      if (take(run)) return o;
    }
    if (!sub.complete) return o;  // it hit the cap on its own
  }
  o.exhaustive = first_pass_complete;
  return o;
}

}  // namespace lockstep::model
