// `pct`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and Nagarakatte,
// "A randomized scheduler with probabilistic guarantees of finding bugs", ASPLOS 2010).
//
// Each execution gives every process (thread, or a thread's store-buffer drains under
// x86-TSO) a random priority above d, and draws d - 1 change points among the k choice
// points of an execution; it always runs the enabled process of highest priority, and at
// the i-th change point drops the running one to priority d - i. A bug of depth d (d
// ordering constraints between steps) is then found by each execution with probability at
// least 1 / (n k^(d-1)) for n processes, whatever the program: the guarantee is printed with
// the result. Execution i draws from its own sub-stream of the seed, so results do not
// depend on how executions are spread over workers.
#pragma once

#include <cstdint>
#include <vector>

#include "model/exploration_strategy.hpp"
#include "sim/rng.hpp"

namespace lockstep::model {

class PctStrategy final : public SamplingStrategy {
 public:
  // `depth` d >= 1; `choice_points` k >= 1 (an estimate of the choice points per execution).
  PctStrategy(std::uint64_t seed, unsigned depth, std::uint64_t choice_points);
  std::string name() const override { return "pct"; }
  void begin_execution(std::uint64_t index) override;
  std::size_t pick(std::span<const sim::Candidate> candidates) override;
  std::string bounds() const override;
  // The lower bound on the chance that one execution finds a bug of depth d among n
  // processes, and what `executions` of them guarantee.
  static double per_execution_probability(unsigned depth, std::size_t processes, std::uint64_t choice_points);
  std::string guarantee_for(std::size_t processes, std::uint64_t executions) const;

 protected:
  nlohmann::json parameters() const override {
    return {{"kind", "pct"}, {"seed", seed_}, {"depth", depth_}, {"choice_points", choice_points_}};
  }

 private:
  std::uint64_t& priority_of(std::uint32_t process);

  std::uint64_t seed_;
  unsigned depth_;
  std::uint64_t choice_points_;
  sim::Rng rng_;
  std::vector<std::uint64_t> priority_;       // per process; 0 = not drawn yet
  std::vector<std::uint64_t> change_points_;  // sorted choice numbers, from 1
  std::uint64_t choices_ = 0;                 // of this execution
};

}  // namespace lockstep::model
