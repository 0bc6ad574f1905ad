#include "model/search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "model/checkpoint.hpp"

namespace lockstep::model {

namespace {
void count(SearchOutcome& o, const sim::ExecutionResult& r) {
  if (r.abandoned) {
    ++o.pruned;
  } else {
    ++o.executions;
  }
  o.max_depth = std::max(o.max_depth, r.steps);
  o.sim_ops += r.memory_ops;
}

using Clock = std::chrono::steady_clock;

// A one-worker or sampling checkpoint (model/checkpoint.hpp): takes its counts into `o` and
// its state into `strategy` (which refuses another search's), and returns the next index.
std::uint64_t resume_counts(const CheckpointPolicy* checkpoint, ExplorationStrategy& strategy, SearchOutcome& o) {
  if (checkpoint == nullptr || !checkpoint->resume) return 0;
  strategy.restore_state(checkpoint->resume->strategy);
  o = checkpoint->resume->so_far;
  return checkpoint->resume->next;
}

// Once the policy's period has passed since `last_saved`: saves `o` as the counts of the
// executions below `next`, with `strategy`'s state after them.
void save_counts_if_due(const CheckpointPolicy* checkpoint, Clock::time_point& last_saved, const SearchOutcome& o,
                        std::uint64_t next, const ExplorationStrategy& strategy) {
  if (checkpoint == nullptr || checkpoint->every_s <= 0 ||
      std::chrono::duration<double>(Clock::now() - last_saved).count() < checkpoint->every_s)
    return;
  if (auto state = strategy.save_state()) {
    SearchCheckpoint c;
    c.so_far = o;
    c.so_far.internal_errors = strategy.internal_errors();
    c.next = next;
    c.strategy = std::move(*state);
    checkpoint->save(c);
  }
  last_saved = Clock::now();
}

}  // namespace

SearchOutcome search(ExplorationStrategy& strategy, Executor& executor, const Verdict& verdict,
                     const SearchLimits& limits, const CheckpointPolicy* checkpoint) {
  SearchOutcome o;
  const std::uint64_t first = resume_counts(checkpoint, strategy, o);
  auto last_saved = Clock::now();
  for (std::uint64_t index = first; index < limits.max_runs; ++index) {
    sim::ExecutionResult r = executor.run(strategy, index);
    count(o, r);
    if (auto v = verdict(r)) {
      o.violation = std::move(v);
      o.schedule = std::move(r.schedule);
      o.violating_index = index;
      o.violating_steps = r.steps;
      break;
    }
    if (!strategy.next(r)) {
      o.exhaustive = strategy.exhaustive();
      break;
    }
    save_counts_if_due(checkpoint, last_saved, o, index + 1, strategy);
  }
  o.internal_errors = strategy.internal_errors();
  return o;
}

SamplingChunk run_sampling_chunk(ExplorationStrategy& strategy, Executor& executor, const Verdict& verdict,
                                 std::uint64_t lo, std::uint64_t hi) {
  SamplingChunk chunk;
  for (std::uint64_t index = lo; index < hi; ++index) {
    sim::ExecutionResult r = executor.run(strategy, index);
    strategy.next(r);
    chunk.runs.push_back({r.steps, r.memory_ops, r.abandoned});
    if ((chunk.violation = verdict(r))) {
      chunk.schedule = std::move(r.schedule);
      break;
    }
  }
  return chunk;
}

SearchOutcome search_sampling(const StrategyFactory& make_strategy, const std::vector<Executor*>& executors,
                              const Verdict& verdict, const SearchLimits& limits, RemoteLanes* lanes,
                              const RemoteSampling& remote_chunk, const CheckpointPolicy* checkpoint) {
  const std::size_t remote = lanes == nullptr ? 0 : lanes->size();
  if (executors.size() <= 1 && remote == 0) {
    const auto strategy = make_strategy();
    return search(*strategy, *executors.front(), verdict, limits, checkpoint);
  }
  // Batches of consecutive executions, shared out among the workers; after each batch the
  // results are read in index order, so the counts and the violation reported are the ones
  // a single worker would have found, whatever the number of workers. Remote lanes take
  // kLaneChunk consecutive executions at a time (one message each way).
  constexpr std::uint64_t kBatch = 4096;
  constexpr std::uint64_t kLaneChunk = 128;
  struct Slot {
    std::uint64_t steps = 0;
    std::uint64_t memory_ops = 0;
    bool abandoned = false;
    std::optional<sim::Violation> violation;
    sim::Schedule schedule;
  };
  std::vector<std::unique_ptr<ExplorationStrategy>> strategies;
  for (std::size_t w = 0; w < executors.size(); ++w) strategies.push_back(make_strategy());
  std::vector<Slot> slots(kBatch);
  SearchOutcome o;
  const std::uint64_t first = resume_counts(checkpoint, *strategies.front(), o);
  auto last_saved = Clock::now();
  for (std::uint64_t lo = first; lo < limits.max_runs; lo += kBatch) {
    const std::uint64_t hi = std::min(limits.max_runs, lo + kBatch);
    std::atomic<std::uint64_t> next{lo};
    std::atomic<std::uint64_t> lowest{hi};  // lowest violating index in this batch
    auto found = [&](std::uint64_t index) {
      std::uint64_t seen = lowest.load();
      while (index < seen && !lowest.compare_exchange_weak(seen, index)) {
      }
    };
    auto work = [&](std::size_t w) {
      if (w >= executors.size()) {  // a remote lane
        for (std::uint64_t a = next.fetch_add(kLaneChunk); a < hi && a < lowest.load(std::memory_order_relaxed);
             a = next.fetch_add(kLaneChunk)) {
          const SamplingChunk chunk = remote_chunk(*lanes, w - executors.size(), a, std::min(hi, a + kLaneChunk));
          for (std::size_t i = 0; i < chunk.runs.size(); ++i) {
            Slot& slot = slots[a + i - lo];
            slot.steps = chunk.runs[i].steps;
            slot.memory_ops = chunk.runs[i].memory_ops;
            slot.abandoned = chunk.runs[i].abandoned;
            slot.violation.reset();
          }
          if (chunk.violation) {
            Slot& last = slots[a + chunk.runs.size() - 1 - lo];
            last.violation = chunk.violation;
            last.schedule = chunk.schedule;
            found(a + chunk.runs.size() - 1);
          }
        }
        return;
      }
      for (std::uint64_t index = next.fetch_add(1); index < hi && index < lowest.load(std::memory_order_relaxed);
           index = next.fetch_add(1)) {
        sim::ExecutionResult r = executors[w]->run(*strategies[w], index);
        strategies[w]->next(r);
        Slot& slot = slots[index - lo];
        slot.steps = r.steps;
        slot.memory_ops = r.memory_ops;
        slot.abandoned = r.abandoned;
        slot.violation = verdict(r);
        if (slot.violation) {
          slot.schedule = std::move(r.schedule);
          found(index);
        }
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < executors.size() + remote; ++w) threads.emplace_back(work, w);
    work(0);
    for (std::thread& t : threads) t.join();
    const std::uint64_t end = std::min(hi, lowest.load() + 1);
    for (std::uint64_t index = lo; index < end; ++index) {  // every one of these ran
      Slot& slot = slots[index - lo];
      sim::ExecutionResult r;
      r.steps = slot.steps;
      r.memory_ops = slot.memory_ops;
      r.abandoned = slot.abandoned;
      count(o, r);
      if (slot.violation) {
        o.violation = std::move(slot.violation);
        o.schedule = std::move(slot.schedule);
        o.violating_index = index;
        o.violating_steps = slot.steps;
        return o;
      }
    }
    save_counts_if_due(checkpoint, last_saved, o, hi, *strategies.front());  // all below hi read, none violating
  }
  return o;
}

}  // namespace lockstep::model
