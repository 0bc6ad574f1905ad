#include "model/exploration.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "model/bounded_parallel.hpp"
#include "model/bounded_strategy.hpp"
#include "model/dpor_parallel.hpp"
#include "model/dpor_strategy.hpp"
#include "model/naive_strategy.hpp"
#include "model/pct_strategy.hpp"
#include "model/random_strategy.hpp"
#include "model/work_units.hpp"

namespace lockstep::model {

namespace {

// PCT's k, when the scenario does not give it: the most choice points among this many random
// executions (deterministic: they use the run's seed).
constexpr std::uint64_t kPctProbeExecutions = 16;

std::uint64_t probe_choice_points(const ExplorationSetup& setup) {
  RandomStrategy probe(setup.seed);
  std::uint64_t most = 1;
  for (std::uint64_t i = 0; i < kPctProbeExecutions; ++i)
    most = std::max<std::uint64_t>(most, setup.executor->run(probe, i).schedule.size());
  return most;
}

// A sampling strategy from its description in a work unit (what explore() puts there).
std::unique_ptr<ExplorationStrategy> sampling_strategy(const nlohmann::json& d) {
  const auto seed = d.at("seed").get<std::uint64_t>();
  if (d.at("kind").get<std::string>() == "pct")
    return std::make_unique<PctStrategy>(seed, d.at("depth").get<unsigned>(), d.at("k").get<std::uint64_t>());
  return std::make_unique<RandomStrategy>(seed);
}

}  // namespace

nlohmann::json serve_sampling_unit(const nlohmann::json& unit, const UnitContext& context) {
  const auto strategy = sampling_strategy(unit.at("strategy"));
  return encode_chunk(run_sampling_chunk(*strategy, *context.executors.front(), context.verdict,
                                         unit.at("lo").get<std::uint64_t>(), unit.at("hi").get<std::uint64_t>()));
}

Exploration explore(const ExplorationSetup& setup) {
  const StrategySpec& spec = setup.strategy;
  Exploration e;
  e.strategy = name_of(spec.kind);
  SearchLimits limits{setup.max_runs, setup.split_levels, setup.min_piece_runs};
  const bool sampling = spec.kind == StrategyKind::random || spec.kind == StrategyKind::pct;

  // bounded: the loader ensured exactly one of the two bounds.
  const BoundKind bound_kind = spec.preemption_bound.has_value() ? BoundKind::preemption : BoundKind::delay;
  const unsigned bound = spec.preemption_bound.value_or(spec.delay_bound.value_or(0));
  StrategyFactory make;
  nlohmann::json sampling_unit;  // random and pct, as a work unit describes them
  switch (spec.kind) {
    case StrategyKind::dfs:
      make = [] { return std::make_unique<DporStrategy>(); };
      break;
    case StrategyKind::naive:
      make = [] { return std::make_unique<NaiveStrategy>(); };
      break;
    case StrategyKind::bounded:
      make = [bound_kind, bound] { return std::make_unique<BoundedStrategy>(bound_kind, bound); };
      break;
    case StrategyKind::pct: {
      const std::uint64_t k = spec.choice_points != 0 ? spec.choice_points : probe_choice_points(setup);
      const std::uint64_t seed = setup.seed;
      const unsigned depth = spec.depth;
      make = [seed, depth, k] { return std::make_unique<PctStrategy>(seed, depth, k); };
      sampling_unit = {{"kind", "pct"}, {"seed", seed}, {"depth", depth}, {"k", k}};
      break;
    }
    case StrategyKind::smt:
      throw std::logic_error("explore: the smt strategy is not an exploration (driver/smt_row.cpp)");
    case StrategyKind::random:
    case StrategyKind::timed: {
      const std::uint64_t seed = setup.seed;
      make = [seed] { return std::make_unique<RandomStrategy>(seed); };
      sampling_unit = {{"kind", "random"}, {"seed", seed}};
      break;
    }
  }

  e.make_strategy = make;
  const auto strategy = make();
  const auto start = std::chrono::steady_clock::now();
  // naive is the reference for the others: one worker, nothing shared with their parallel search.
  const bool splittable = spec.kind != StrategyKind::timed && spec.kind != StrategyKind::naive;
  RemoteLanes* const remote = splittable ? setup.remote : nullptr;
  // Checkpoints: a one-worker dfs saves its stack; a parallel, distributed or bounded search
  // its finished units; random and pct the counts below an index and their parameters, on
  // any number of workers. A checkpoint resumes as the kind of search that wrote it.
  const CheckpointPolicy* checkpoint = setup.checkpoint;
  const bool resume_stack = checkpoint != nullptr && checkpoint->resume && !checkpoint->resume->units;
  const bool resume_units = checkpoint != nullptr && checkpoint->resume && checkpoint->resume->units;
  if (resume_units && sampling)
    throw std::invalid_argument("explore: a checkpoint of units is a dfs or bounded search's");
  const bool many = setup.workers > 1 || remote != nullptr;
  // A sampling checkpoint resumes on any number of workers; a stack one on one worker.
  const bool parallel =
      sampling ? many
               : splittable && !resume_stack &&
                     (many || resume_units || (checkpoint != nullptr && spec.kind == StrategyKind::bounded));
  if (parallel) {
    std::vector<std::unique_ptr<Executor>> extra;
    std::vector<Executor*> executors{setup.executor};
    for (unsigned w = 1; w < setup.workers; ++w) {
      extra.push_back(setup.make_executor());
      executors.push_back(extra.back().get());
    }
    e.workers = setup.workers;
    if (sampling) {
      const RemoteSampling remote_chunk = [&sampling_unit](RemoteLanes& lanes, std::size_t lane, std::uint64_t lo,
                                                           std::uint64_t hi) {
        const nlohmann::json unit = {{"kind", "sampling"}, {"strategy", sampling_unit}, {"lo", lo}, {"hi", hi}};
        return decode_chunk(from_bytes(lanes.call(lane, to_bytes(unit), nullptr, nullptr)));
      };
      e.outcome = search_sampling(make, executors, setup.verdict, limits, remote, remote_chunk, checkpoint);
    } else if (spec.kind == StrategyKind::dfs) {
      // Each remote lane's thread here merges what its rank sends back, with an executor of its own.
      std::vector<Executor*> lane_executors;
      for (std::size_t l = 0; remote != nullptr && l < remote->size(); ++l) {
        extra.push_back(setup.make_executor());
        lane_executors.push_back(extra.back().get());
      }
      e.outcome = search_dfs(executors, setup.verdict, limits, remote, lane_executors, checkpoint);
    } else {
      e.outcome = search_bounded(bound_kind, bound, executors, setup.verdict, limits, remote, checkpoint);
    }
  } else {
    if (resume_stack && spec.kind != StrategyKind::dfs && !sampling)
      throw std::invalid_argument("explore: a one-worker checkpoint is a dfs, random or pct search's");
    e.outcome = search(*strategy, *setup.executor, setup.verdict, limits, checkpoint);
  }
  e.search_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.bounds = strategy->bounds();
  if (auto* pct = dynamic_cast<PctStrategy*>(strategy.get()); pct != nullptr) {
    e.guarantee = pct->guarantee_for(setup.executor->processes(), e.outcome.executions);
  }

  if (e.outcome.violation) {
    if (setup.on_found) setup.on_found(e.outcome);
    const Verdict same = [&setup, property = e.outcome.violation->property](const sim::ExecutionResult& r) {
      auto v = setup.verdict(r);
      return v && v->property == property ? v : std::nullopt;
    };
    e.found_preemptions = count_preemptions(*setup.executor, e.outcome.schedule, e.outcome.violating_index);
    if (spec.minimize) {
      e.counterexample = minimize(*setup.executor, same, e.outcome.schedule, e.outcome.violating_index,
                                  MinimizeBudget{}, e.outcome.violation->property);
    } else {
      Counterexample c;
      c.schedule = e.outcome.schedule;
      c.steps = e.outcome.violating_steps;
      c.preemptions = e.found_preemptions;
      e.counterexample = std::move(c);
    }
  }
  return e;
}

}  // namespace lockstep::model
