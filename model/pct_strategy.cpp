#include "model/pct_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "model/causal_order.hpp"

namespace lockstep::model {

namespace {
// Initial priorities sit above every change-point priority (1 .. d-1).
constexpr std::uint64_t kInitialFloor = std::uint64_t{1} << 62;
}  // namespace

PctStrategy::PctStrategy(std::uint64_t seed, unsigned depth, std::uint64_t choice_points)
    : seed_(seed), depth_(depth), choice_points_(std::max<std::uint64_t>(choice_points, 1)), rng_(seed) {
  if (depth_ < 1) throw std::invalid_argument("pct: the bug depth must be at least 1");
}

void PctStrategy::begin_execution(std::uint64_t index) {
  rng_.reseed(sim::Rng::derive(seed_, index));
  priority_.clear();
  change_points_.clear();
  for (unsigned i = 1; i < depth_; ++i) change_points_.push_back(1 + rng_.below(choice_points_));
  std::sort(change_points_.begin(), change_points_.end());
  choices_ = 0;
}

std::uint64_t& PctStrategy::priority_of(std::uint32_t process) {
  if (process >= priority_.size()) priority_.resize(process + 1, 0);
  std::uint64_t& p = priority_[process];
  if (p == 0) p = kInitialFloor + rng_.below(kInitialFloor);
  return p;
}

std::size_t PctStrategy::pick(std::span<const sim::Candidate> candidates) {
  ++choices_;
  auto best = [&] {
    std::size_t top = 0;
    for (std::size_t k = 1; k < candidates.size(); ++k)
      if (priority_of(process_of(candidates[k].choice)) > priority_of(process_of(candidates[top].choice))) top = k;
    return top;
  };
  std::size_t chosen = best();
  // Several change points may fall on one choice: each lowers whoever would run.
  for (std::size_t i = 0; i < change_points_.size(); ++i) {
    if (change_points_[i] != choices_) continue;
    priority_of(process_of(candidates[chosen].choice)) = depth_ - 1 - i;
    chosen = best();
  }
  return chosen;
}

std::string PctStrategy::bounds() const { return fmt::format("depth {}, {} choice points", depth_, choice_points_); }

double PctStrategy::per_execution_probability(unsigned depth, std::size_t processes, std::uint64_t choice_points) {
  const double n = static_cast<double>(std::max<std::size_t>(processes, 1));
  return 1.0 / (n * std::pow(static_cast<double>(choice_points), static_cast<double>(depth - 1)));
}

std::string PctStrategy::guarantee_for(std::size_t processes, std::uint64_t executions) const {
  const double p = per_execution_probability(depth_, processes, choice_points_);
  const double miss = std::pow(1.0 - p, static_cast<double>(executions));
  return fmt::format(
      "each execution finds a bug of depth {} with probability >= 1/(n k^(d-1)) = {:.3g} (n = {} processes, k = {} "
      "choice points); {} executions miss one with probability <= {:.3g}",
      depth_, p, processes, choice_points_, executions, miss);
}

}  // namespace lockstep::model
