// What every model-checking strategy is: a Scheduler oracle that explores, one execution at
// a time, and knows when it has covered its search space.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/exec/engine.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::model {

class ExplorationStrategy : public sim::Scheduler {
 public:
  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  // The engine finished an execution under this oracle. Returns false when nothing is left
  // to explore.
  virtual bool next(const sim::ExecutionResult& last) = 0;
  // True once next() returned false and the search covered every execution within its
  // bounds; never for sampling strategies.
  virtual bool exhaustive() const { return false; }
  // The bounds the search stayed within, for results ("preemptions <= 2"); empty for none.
  virtual std::string bounds() const { return {}; }
  // What a sampling strategy guarantees (PCT's probability bound); empty for none.
  virtual std::string guarantee() const { return {}; }
  // Times the search reached a state its algorithm says cannot be reached (a checker bug,
  // not a verdict): debug builds abort there; release builds count, recover soundly and
  // report the count, which makes `lockstep check` exit 3.
  virtual std::uint64_t internal_errors() const { return 0; }
  // Checkpoints (model/checkpoint.hpp): the state after next(), for strategies that can go
  // on from one; nullopt for the others.
  virtual std::optional<nlohmann::json> save_state() const { return std::nullopt; }
  // Takes the state save_state() gave (throws std::runtime_error on one it cannot use).
  virtual void restore_state(const nlohmann::json&) {
    throw std::runtime_error("checkpoint: " + name() + " cannot resume from a checkpoint");
  }
};

// A sampling strategy (random, pct): execution i depends on i and the strategy's parameters
// alone, so the state a checkpoint needs is those parameters; one written with others (say,
// another seed) is refused rather than resumed into a different search.
class SamplingStrategy : public ExplorationStrategy {
 public:
  bool next(const sim::ExecutionResult&) override { return true; }
  std::optional<nlohmann::json> save_state() const override { return parameters(); }
  void restore_state(const nlohmann::json& saved) override {
    if (saved != parameters())
      throw std::runtime_error("checkpoint: written by the search " + saved.dump() + ", not this one " +
                               parameters().dump());
  }

 protected:
  // What decides every execution, with the strategy's name.
  virtual nlohmann::json parameters() const = 0;
};

}  // namespace lockstep::model
