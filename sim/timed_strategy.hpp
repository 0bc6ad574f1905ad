// `timed`: earliest virtual time first (the engine orders by clock); ties between threads
// ready at the same instant are broken by keys hashed from a seed the run's PRNG draws once
// per execution (tie_seed()), the thread and how many times it was scheduled before. The engine never calls pick() in
// timed mode; it answers anyway, uniformly, so the strategy is a complete oracle.
#pragma once

#include "sim/rng.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::sim {

class TimedStrategy final : public Scheduler {
 public:
  explicit TimedStrategy(std::uint64_t seed) : seed_(seed), rng_(seed) {}
  EngineMode mode() const override { return EngineMode::timed; }
  void begin_execution(std::uint64_t index) override {
    rng_.reseed(Rng::derive(seed_, index));
    tie_seed_ = rng_.next();
  }
  std::size_t pick(std::span<const Candidate> candidates) override { return rng_.below(candidates.size()); }
  std::uint64_t tie_seed() override { return tie_seed_; }
  std::string name() const override { return "timed"; }

 private:
  std::uint64_t seed_;
  Rng rng_;
  std::uint64_t tie_seed_ = 0;
};

}  // namespace lockstep::sim
