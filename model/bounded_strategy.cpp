#include "model/bounded_strategy.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::model {

BoundedStrategy::BoundedStrategy(BoundKind kind, unsigned bound, Subtree subtree)
    : kind_(kind), bound_(bound), stack_(std::move(subtree.nodes)), frozen_(stack_.size()) {}

void BoundedStrategy::begin_execution(std::uint64_t) {
  depth_ = 0;
  branchings_ = 0;
  spent_ = 0;
  last_ = sim::kNoThread;
}

std::string BoundedStrategy::bounds() const {
  return fmt::format("{} <= {}", kind_ == BoundKind::preemption ? "preemptions" : "delays", bound_);
}

std::vector<BoundedStrategy::Option> BoundedStrategy::options_for(std::span<const sim::Candidate> candidates) const {
  std::vector<Option> out;
  std::vector<std::uint32_t> steps;   // thread steps, by thread id
  std::vector<std::uint32_t> drains;  // store buffers, by thread id
  for (std::uint32_t k = 0; k < candidates.size(); ++k)
    (candidates[k].choice.kind == sim::Choice::Kind::drain ? drains : steps).push_back(k);
  // The thread a non-preemptive scheduler runs: the last one if it can go on, else the next
  // by id after it (round robin).
  std::size_t first = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (last_ != sim::kNoThread && candidates[steps[s]].choice.thread >= last_) {
      first = s;
      break;
    }
  }
  // The last thread waits for its own store buffer (a locked operation, mfence or xchg
  // store under x86-TSO): its drain is how it goes on, what the non-preemptive scheduler
  // picks; anything else preempts it. (On the machine the operation stalls while the buffer
  // drains; running another thread meanwhile is a context switch.)
  std::optional<std::uint32_t> own_drain;
  for (const std::uint32_t k : drains)
    if (candidates[k].owner_waits && candidates[k].choice.thread == last_) own_drain = k;
  const bool last_enabled =
      own_drain.has_value() || (!steps.empty() && candidates[steps[first]].choice.thread == last_);
  if (own_drain) out.push_back(Option{*own_drain, 0});
  const unsigned after = own_drain ? 1 : 0;  // picks ahead of the steps
  for (std::size_t r = 0; r < steps.size(); ++r) {
    const std::uint32_t k = steps[(first + r) % steps.size()];
    unsigned cost = 0;
    if (kind_ == BoundKind::delay) {
      cost = static_cast<unsigned>(r) + after;
    } else {
      cost = (last_enabled && (r > 0 || own_drain)) ? 1 : 0;
    }
    out.push_back(Option{k, cost});
  }
  // A drain instead of the scheduler's own pick: a preemption (or one delay) when a thread
  // could run, free when every thread is blocked or done.
  for (const std::uint32_t k : drains) {
    if (own_drain && k == *own_drain) continue;
    out.push_back(Option{k, steps.empty() && !own_drain ? 0U : (kind_ == BoundKind::delay || last_enabled) ? 1U : 0U});
  }
  std::stable_sort(out.begin(), out.end(), [](const Option& a, const Option& b) { return a.cost < b.cost; });
  return out;
}

std::size_t BoundedStrategy::pick(std::span<const sim::Candidate> candidates) {
  const std::size_t i = depth_++;
  if (i == stack_.size()) {
    Node n;
    n.options = options_for(candidates);
    n.spent_before = spent_;
    stack_.push_back(std::move(n));
  }
  const Node& n = stack_[i];
  if (split_after_ != 0 && n.options.size() > 1 && ++branchings_ == split_after_ && i >= frozen_) {
    split_ = Subtree{std::vector<Node>(stack_.begin(), stack_.begin() + static_cast<std::ptrdiff_t>(i) + 1)};
    return kAbandon;
  }
  const Option& o = n.options[n.taken];
  if (o.index >= candidates.size())
    throw std::logic_error(
        fmt::format("bounded: step {} of a re-run differs from the first run: the scenario is not "
                    "deterministic",
                    i));
  spent_ += o.cost;
  const sim::Choice& c = candidates[o.index].choice;
  if (c.kind == sim::Choice::Kind::step) last_ = c.thread;
  return o.index;
}

bool BoundedStrategy::next(const sim::ExecutionResult&) {
  while (stack_.size() > frozen_) {
    Node& n = stack_.back();
    // Options are sorted by cost: once one is over the bound, so is every later one.
    if (n.taken + 1 < n.options.size() && n.spent_before + n.options[n.taken + 1].cost <= bound_) {
      ++n.taken;
      return true;
    }
    stack_.pop_back();
  }
  exhausted_ = true;
  return false;
}

}  // namespace lockstep::model
