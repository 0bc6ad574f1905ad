// `random`: at every scheduling point, a uniformly random enabled thread (a random walk over
// interleavings). Execution i draws from its own sub-stream of the seed, so results do not
// depend on how executions are spread over workers.
#pragma once

#include "model/exploration_strategy.hpp"
#include "sim/rng.hpp"

namespace lockstep::model {

class RandomStrategy final : public SamplingStrategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : seed_(seed), rng_(seed) {}
  void begin_execution(std::uint64_t index) override { rng_.reseed(sim::Rng::derive(seed_, index)); }
  std::size_t pick(std::span<const sim::Candidate> candidates) override { return rng_.below(candidates.size()); }
  std::string name() const override { return "random"; }

 protected:
  nlohmann::json parameters() const override { return {{"kind", "random"}, {"seed", seed_}}; }

 private:
  std::uint64_t seed_;
  sim::Rng rng_;
};

}  // namespace lockstep::model
