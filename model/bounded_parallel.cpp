#include "model/bounded_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "model/run_groups.hpp"
#include "model/unit_cache.hpp"
#include "model/work_units.hpp"

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

// A subtree's runs in depth-first order, up to and including its first violation, which
// only the last run can hold: in groups (model/run_groups.hpp), so that memory does not grow
// with the tens of millions of runs a bounded search can make.
struct SubtreeResult {
  Runs runs;
  std::optional<sim::Violation> violation;  // the last run's
  sim::Schedule schedule;                   // with it
  bool complete = false;                    // explored to its end (or to a violation)
  bool cut = false;                         // stopped because the cap is reached before it (never sent or kept)
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

// One subtree, depth first, to its end, its first violation or the cap; or until `needed`
// (asked every 64 runs with the runs so far, when given) says the cap is reached before it,
// which leaves it incomplete.
SubtreeResult explore_subtree(BoundKind kind, unsigned bound, BoundedStrategy::Subtree subtree, Executor& ex,
                              const Verdict& verdict, std::uint64_t max_runs,
                              const std::function<bool(std::uint64_t)>& needed = {}) {
  BoundedStrategy strategy(kind, bound, std::move(subtree));
  SubtreeResult out;
  for (std::uint64_t index = 0; index < max_runs; ++index) {
    if (needed && index % 64 == 0 && !needed(index)) {
      out.cut = true;
      return out;
    }
    sim::ExecutionResult r = ex.run(strategy, index);
    out.runs.push(RunFigures{r.steps, r.memory_ops, false});
    if (auto v = verdict(r)) {
      out.violation = std::move(v);
      out.schedule = std::move(r.schedule);
      out.complete = true;
      break;
    }
    if (!strategy.next(r)) {
      out.complete = true;
      break;
    }
  }
  return out;
}

// A subtree's result as a remote lane sends it back: only the last run can hold a violation.
nlohmann::json encode_result(const SubtreeResult& r) {
  PackedRuns runs;
  r.runs.for_first(r.runs.size(), [&runs](const RunFigures& run, std::uint64_t count) {
    runs.add(run.steps, run.memory_ops, false, count);
  });
  return {{"runs", to_json(std::move(runs))},
          {"violation", encode_violation(r.violation)},
          {"schedule", encode_choices(r.schedule)},
          {"complete", r.complete}};
}

SubtreeResult decode_result(const nlohmann::json& j) {
  SubtreeResult r;
  for_each_run_group(j.at("runs"), [&r](const RunFigures& x, std::uint64_t count) { r.runs.push(x, count); });
  r.violation = decode_violation(j.at("violation"));
  if (r.violation && r.runs.size() == 0) throw std::runtime_error("work unit: a violation without a run");
  r.schedule = decode_choices(j.at("schedule"));
  r.complete = j.at("complete").get<bool>();
  return r;
}

}  // namespace

nlohmann::json serve_bounded_unit(const nlohmann::json& unit, const UnitContext& context) {
  return encode_result(explore_subtree(static_cast<BoundKind>(unit.at("bound_kind").get<int>()),
                                       unit.at("bound").get<unsigned>(), decode_bounded_subtree(unit.at("subtree")),
                                       *context.executors.front(), context.verdict,
                                       unit.at("max_runs").get<std::uint64_t>()));
}

SearchOutcome search_bounded(BoundKind kind, unsigned bound, const std::vector<Executor*>& executors,
                             const Verdict& verdict, const SearchLimits& limits, RemoteLanes* lanes,
                             const CheckpointPolicy* checkpoint) {
  const std::size_t remote = lanes == nullptr ? 0 : lanes->size();
  const SearchCheckpoint* resume = checkpoint != nullptr && checkpoint->resume ? &*checkpoint->resume : nullptr;
  if (resume != nullptr && !resume->units)
    throw std::invalid_argument("search_bounded: a checkpoint of a bounded search holds units");
  if (executors.size() <= 1 && remote == 0 && checkpoint == nullptr) {
    BoundedStrategy strategy(kind, bound);
    return search(strategy, *executors.front(), verdict, limits);
  }
  // A resumed search keeps the split it was checkpointed with, to meet the same subtrees.
  const unsigned split = resume != nullptr ? resume->split : split_depth(executors.size() + remote);
  UnitCache cache;
  if (resume != nullptr) UnitCache::load(*resume->units, cache);
  // First pass: on the calling thread.
  std::vector<Item> items;
  std::vector<BoundedStrategy::Subtree> subtrees;
  bool first_pass_complete = false;  // it reached the end of the tree (not the cap)
  {
    BoundedStrategy splitter(kind, bound);
    splitter.split_after(split);
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
  // With a cap, the merge takes the first max_runs runs in depth-first order, so a subtree is
  // needed only while fewer than that come before it: the first pass's runs before it plus
  // what the subtrees before it have run so far (a lower bound of what they will have run).
  // Without this, every subtree ran to its own cap, each up to max_runs: a capped search of
  // mc-four-threads-7 under TSO ran out of memory (24 GB) after 818 s.
  std::vector<std::uint64_t> runs_before(subtrees.size());
  {
    std::uint64_t n = 0;
    for (const Item& item : items) {
      if (item.run) {
        ++n;
      } else {
        runs_before[item.subtree] = n;
      }
    }
  }
  std::vector<std::atomic<std::uint64_t>> ran(subtrees.size());  // each subtree's runs so far
  const auto needed = [&](std::size_t s, std::uint64_t own) {
    std::uint64_t before = runs_before[s];
    for (std::size_t t = 0; t < s && before < limits.max_runs; ++t) before += ran[t].load(std::memory_order_relaxed);
    return before + own < limits.max_runs;
  };
  // Worker w < executors.size() runs subtrees here; past that, on remote lane w - executors.size().
  auto work = [&](std::size_t w) {
    for (std::size_t s = next.fetch_add(1); s < subtrees.size() && s < first_violation.load(); s = next.fetch_add(1)) {
      SubtreeResult& out = results[s];
      const bool here = w < executors.size();
      std::string unit;
      if (!here || checkpoint != nullptr) {
        unit = to_bytes({{"kind", "bounded"},
                         {"bound_kind", static_cast<int>(kind)},
                         {"bound", bound},
                         {"subtree", encode_subtree(subtrees[s])},
                         {"max_runs", limits.max_runs}});
      }
      const std::optional<std::string> known = checkpoint != nullptr ? cache.find(unit) : std::nullopt;
      if (known) {
        out = decode_result(from_bytes(*known));
      } else if (!needed(s, 0)) {
        out.cut = true;
      } else if (here) {
        out = explore_subtree(kind, bound, subtrees[s], *executors[w], verdict, limits.max_runs,
                              [&, s](std::uint64_t own) {
                                ran[s].store(own, std::memory_order_relaxed);
                                return needed(s, own);
                              });
      } else {
        out = decode_result(from_bytes(lanes->call(w - executors.size(), unit, nullptr, nullptr)));
      }
      ran[s].store(out.runs.size(), std::memory_order_relaxed);
      if (checkpoint != nullptr && !known && !out.cut) cache.put(unit, to_bytes(encode_result(out)), nullptr);
      if (out.violation) {
        std::size_t seen = first_violation.load();
        while (s < seen && !first_violation.compare_exchange_weak(seen, s)) {
        }
      }
    }
  };
  {
    const std::unique_ptr<PeriodicSave> saver = save_periodically(checkpoint, cache, split);
    // A worker's error (a lane's, a checkpoint's answer that does not decode) ends its loop
    // and is rethrown here, once every worker has stopped.
    std::mutex error_mutex;
    std::exception_ptr error;
    auto guarded = [&](std::size_t w) {
      try {
        work(w);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        first_violation.store(0);  // the others start nothing more
      }
    };
    std::vector<std::thread> threads;
    for (std::size_t w = 1; w < executors.size() + remote; ++w) threads.emplace_back(guarded, w);
    guarded(0);
    for (std::thread& t : threads) t.join();
    if (error) std::rethrow_exception(error);
    if (saver) saver->finish();  // no checkpoint is written after the search ends
  }

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
    // Its runs without a violation (all but the violating last), as many as the cap leaves
    // room for; then the violating one, if the cap leaves room for it.
    const std::uint64_t plain = sub.runs.size() - (sub.violation ? 1 : 0);
    const std::uint64_t k = std::min(plain, limits.max_runs - o.executions);
    sub.runs.for_first(k, [&o](const RunFigures& figures, std::uint64_t count) {
      o.executions += count;
      o.max_depth = std::max(o.max_depth, figures.steps);
      o.sim_ops += figures.memory_ops * count;
    });
    if (k < plain) return o;
    if (sub.violation) {
      if (o.executions == limits.max_runs) return o;
      const RunFigures& figures = sub.runs.back();
      Run last{figures.steps, figures.memory_ops, std::move(sub.violation), std::move(sub.schedule)};
      take(last);
      return o;
    }
    if (!sub.complete) return o;  // it hit the cap on its own
  }
  o.exhaustive = first_pass_complete;
  return o;
}

}  // namespace lockstep::model
