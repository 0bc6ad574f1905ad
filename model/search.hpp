// The search loop shared by every exploring strategy: run executions one after another,
// stop at the first violation or when the strategy has nothing left, count what happened.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "model/exploration_strategy.hpp"
#include "model/remote_lanes.hpp"
#include "sim/exec/engine.hpp"

namespace lockstep::model {

// Runs one execution of the scenario under an oracle (an engine and a workload). A parallel
// search has one per worker.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual sim::ExecutionResult run(sim::Scheduler& oracle, std::uint64_t index) = 0;
  // Processes of the last execution: its threads, and their store buffers under x86-TSO.
  virtual std::size_t processes() const = 0;
};

// Which violations count (the scenario's checked properties); nullopt for a pass.
using Verdict = std::function<std::optional<sim::Violation>(const sim::ExecutionResult&)>;

struct SearchLimits {
  std::uint64_t max_runs = 1'000'000;  // executions, pruned ones included
  // A parallel or distributed dfs: how many branching levels hand their branches out as
  // units as soon as they are known (0: none; idle workers and ranks get branches split on
  // demand either way). Results do not depend on it; speed does.
  unsigned split_levels = 0;
  // A split on demand hands out a branch only where the search's branch at that node has run
  // this many executions (`check --min-piece`; ParallelDfs::split_on_demand). Results do not depend on
  // it; 0 splits wherever a node has a branch left (tests, to split small programs).
  std::uint64_t min_piece_runs = 64;
  // Parallel dfs: the root's first execution starts only once every other local worker waits
  // for a job, so that its first split on demand happens whatever the host's load (tests;
  // Pool::await_waiting). Results do not depend on it. The bounded search has nothing to
  // wait for: it splits its tree in a first pass into units that its threads then take in
  // order, with no split on demand.
  bool start_when_workers_wait = false;
};

struct SearchOutcome {
  std::uint64_t executions = 0;       // complete executions
  std::uint64_t pruned = 0;           // abandoned as redundant (dfs: every enabled choice asleep)
  std::uint64_t max_depth = 0;        // most steps in one execution
  std::uint64_t sim_ops = 0;          // memory operations over all executions
  bool exhaustive = false;            // the strategy covered its whole space within its bounds
  std::uint64_t internal_errors = 0;  // ExplorationStrategy::internal_errors, over every worker
  std::optional<sim::Violation> violation;
  sim::Schedule schedule;  // of the violating execution
  std::uint64_t violating_index = 0;
  std::uint64_t violating_steps = 0;
  // A parallel dfs's own costs, this process's threads only (a distributed search's other
  // ranks are not in them): what limits its speed-up, docs/model-checking.md "Parallel
  // search". Host time, never part of a verdict or trace.
  struct Parallel {
    std::uint64_t tasks = 0;            // subtrees run as tasks (on a worker here or sent to a rank)
    std::uint64_t split_on_demand = 0;  // of them, handed to an idle thread below the split levels
    std::uint64_t probes = 0;           // first-step probes: a subtree's root path run to learn its first step
    double idle_s = 0;                  // thread-seconds the workers waited with nothing to run
    double probe_s = 0;                 // thread-seconds in first-step probes
  } parallel;
};

struct CheckpointPolicy;  // model/checkpoint.hpp

// One strategy on one executor, in order; with `checkpoint`, saving its state as it goes
// and, if it says so, starting from a saved one.
SearchOutcome search(ExplorationStrategy& strategy, Executor& executor, const Verdict& verdict,
                     const SearchLimits& limits, const CheckpointPolicy* checkpoint = nullptr);

// A sampling strategy (random, pct: execution i depends on i only) over several executors
// at once. The outcome is the one a single worker would find: the violation of lowest index,
// with every lower index run.
using StrategyFactory = std::function<std::unique_ptr<ExplorationStrategy>()>;

// Executions lo, lo+1, ... of a sampling strategy up to hi or the first violation: a unit of
// a distributed sampling search (model/work_units.hpp).
struct SamplingChunk {
  struct RunFigures {
    std::uint64_t steps = 0;
    std::uint64_t memory_ops = 0;
    bool abandoned = false;
  };
  std::vector<RunFigures> runs;
  std::optional<sim::Violation> violation;  // of the last run
  sim::Schedule schedule;
};
SamplingChunk run_sampling_chunk(ExplorationStrategy& strategy, Executor& executor, const Verdict& verdict,
                                 std::uint64_t lo, std::uint64_t hi);
// How the search gets executions [lo, hi) run on a remote lane.
using RemoteSampling = std::function<SamplingChunk(RemoteLanes&, std::size_t lane, std::uint64_t lo, std::uint64_t hi)>;

// With `checkpoint`, it saves (between batches, once the period has passed) the counts of
// the executions below the batch's end, every one of them read, and resumes from such a
// checkpoint at its next index, on any number of workers or lanes.
SearchOutcome search_sampling(const StrategyFactory& make_strategy, const std::vector<Executor*>& executors,
                              const Verdict& verdict, const SearchLimits& limits, RemoteLanes* lanes = nullptr,
                              const RemoteSampling& remote_chunk = {}, const CheckpointPolicy* checkpoint = nullptr);

}  // namespace lockstep::model
