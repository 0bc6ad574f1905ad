#include "model/search_estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <ranges>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "model/causal_order.hpp"
#include "model/dpor_strategy.hpp"
#include "sim/rng.hpp"

namespace lockstep::model {

namespace {

using Asleep = DporStrategy::Asleep;

// Runs the scenario along `prefix` (one choice per step, as a dfs stack has one node per
// step) and stops at the next step, keeping what the engine offers there. The prefix's last
// step's accesses are in the log afterwards.
class PrefixRun final : public sim::Scheduler {
 public:
  explicit PrefixRun(const std::vector<sim::Choice>& prefix) : prefix_(prefix) {}
  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  std::string name() const override { return "estimate"; }
  sim::EventLog* event_log() override { return &log_; }
  bool continue_after_violation() const override { return true; }  // as dfs: the tree's leaves are whole executions
  void begin_execution(std::uint64_t) override {
    depth_ = 0;
    reached_ = false;
  }
  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    if (depth_ == prefix_.size()) {
      offered_.assign(candidates.begin(), candidates.end());
      reached_ = true;
      return kAbandon;
    }
    const sim::Choice want = prefix_[depth_++];
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (candidates[k].choice == want) return k;
    throw std::logic_error(
        fmt::format("estimate: step {} of a re-run differs from the first run (thread {} is not "
                    "enabled): the scenario is not deterministic",
                    depth_ - 1, want.thread));
  }
  // After a run: false when the execution ended before the step after the prefix (a leaf).
  bool reached() const { return reached_; }
  std::vector<sim::Candidate>& offered() { return offered_; }
  std::span<const sim::StepAccess> last_accesses() const {
    return prefix_.empty() || log_.steps.size() < prefix_.size() ? std::span<const sim::StepAccess>{}
                                                                 : log_.accesses_of(log_.steps[prefix_.size() - 1]);
  }

 private:
  const std::vector<sim::Choice>& prefix_;
  sim::EventLog log_;
  std::vector<sim::Candidate> offered_;
  std::size_t depth_ = 0;
  bool reached_ = false;
};

constexpr std::size_t kMostStrata = 1 << 16;

struct Node {
  std::vector<sim::Choice> prefix;
  std::vector<Asleep> sleep;
  std::vector<sim::Candidate> offered;  // the choices enabled after the prefix
  std::vector<std::uint32_t> steps;     // per process (model/causal_order.hpp), along the prefix
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

// What decides a node's subtree, as far as the scheduler sees it: how far each process is,
// what each enabled choice would do next, and which choices sleep, each with whether its
// footprint is in memory or in its buffer (a set: its entries are combined in any order).
// Where a sleeper's footprint is in memory follows from its process's progress in a program
// whose control flow does not depend on values; leaving the addresses out kept the counts
// exact on every bench program and needed a third fewer strata on four threads of seven
// under x86-TSO. Not the values in memory or registers: nodes that
// differ only there share a stratum, which costs accuracy, never the estimate's expectation.
// How far each process is (a process that has not begun adds nothing, so the vector's length
// does not matter).
std::uint64_t progress_hash(const Node& n) {
  std::uint64_t h = 0;
  for (std::size_t p = 0; p < n.steps.size(); ++p)
    if (n.steps[p] != 0) h = mix(mix(h, p), n.steps[p]);
  return h;
}

std::uint64_t stratum_key(const Node& n) {
  std::uint64_t h = progress_hash(n);
  for (const sim::Candidate& c : n.offered) {
    h = mix(h, process_of(c.choice));
    h = mix(h, (static_cast<std::uint64_t>(c.op.kind) << 16) | (std::uint64_t{c.op.size} << 8) |
                   static_cast<std::uint64_t>(c.op.order));
    h = mix(h, c.op.addr);
  }
  std::uint64_t sleepers = 0;
  for (const Asleep& a : n.sleep) {
    std::uint64_t e = mix(1, process_of(a.choice));
    for (const sim::StepAccess& x : a.accesses) e = mix(e, x.space == sim::kSharedSpace ? 1 : 2);
    sleepers += e;
  }
  return mix(h, sleepers);
}

// A coarser stratum, for a level past its bound: as far along (the same steps left to run),
// as many asleep.
std::uint64_t progress_key(const Node& n) { return mix(progress_hash(n), n.sleep.size()); }

// One level's strata: each keeps one node and the weight of every node merged into it.
class Strata {
 public:
  Strata(std::size_t capacity, sim::Rng& rng) : capacity_(capacity), rng_(rng) {}
  void add(Node&& n, double weight) {
    const std::uint64_t key = stratum_key(n);
    const std::uint64_t coarse = progress_key(n);
    std::size_t slot;
    if (auto it = index_.find(key); it != index_.end()) {
      slot = it->second;
    } else if (nodes_.size() < capacity_) {
      slot = nodes_.size();
      index_.emplace(key, slot);
      coarse_.emplace(coarse, slot);
      nodes_.push_back(std::move(n));
      weights_.push_back(weight);
      return;
    } else if (auto c = coarse_.find(coarse); c != coarse_.end()) {
      slot = c->second;  // full: merged with a node as far along, as many asleep
      overflowed_ = true;
    } else {
      slot = key % capacity_;  // full: merged with another stratum (unbiased still, less accurate)
      overflowed_ = true;
    }
    weights_[slot] += weight;
    const double u = static_cast<double>(rng_.next() >> 11) * 0x1.0p-53;
    if (u * weights_[slot] < weight) nodes_[slot] = std::move(n);
  }
  std::vector<Node>& nodes() { return nodes_; }
  // Nodes of different strata were merged: the probe's estimate is a sample.
  bool overflowed() const { return overflowed_; }
  std::vector<double>& weights() { return weights_; }

 private:
  std::size_t capacity_;
  sim::Rng& rng_;
  std::unordered_map<std::uint64_t, std::size_t> index_;
  std::unordered_map<std::uint64_t, std::size_t> coarse_;
  std::vector<Node> nodes_;
  std::vector<double> weights_;
  bool overflowed_ = false;
};

struct ProbeResult {
  double executions = 0;
  std::uint64_t replays = 0;
  std::uint64_t steps = 0;   // re-run
  bool overflowed = false;   // some level had more strata than it keeps
  bool aborted = false;      // past its budget: no estimate
  std::uint64_t widest = 0;  // most nodes a level kept
};

bool asleep(const std::vector<Asleep>& sleep, const sim::Choice& c) {
  return std::any_of(sleep.begin(), sleep.end(), [&c](const Asleep& a) { return a.choice == c; });
}

bool is_store(sim::OpKind k) { return k == sim::OpKind::store || k == sim::OpKind::plain_store; }

// Which kinds of store (kind and order) take a step that touches nothing (x86-TSO: into the
// buffer), as the probes have seen: tried once, then known.
using StoreKinds = std::map<std::pair<int, int>, bool>;

// One probe keeping at most `most` strata a level; abandoned (`aborted`) once it has re-run
// more than `budget` steps.
ProbeResult probe(Executor& executor, std::size_t most, double budget, std::uint64_t seed, StoreKinds& quiet_stores) {
  ProbeResult out;
  sim::Rng rng(seed);
  std::vector<Node> level(1);
  std::vector<double> weights{1.0};
  {
    PrefixRun run(level[0].prefix);
    executor.run(run, 0);
    ++out.replays;
    if (!run.reached()) {  // no step at all
      out.executions = 1;
      return out;
    }
    level[0].offered = std::move(run.offered());
  }
  while (!level.empty()) {
    out.widest = std::max<std::uint64_t>(out.widest, level.size());
    if (static_cast<double>(out.steps) > budget) {
      out.aborted = true;
      return out;
    }
    Strata next(most, rng);
    for (std::size_t i = 0; i < level.size(); ++i) {
      Node& n = level[i];
      // A sleeper whose step touches nothing never wakes (only another process's step that
      // touches what it would touch wakes it), and its thread must take that step to end:
      // every leaf below is blocked. Such a node counts nothing.
      const bool dead = std::any_of(n.sleep.begin(), n.sleep.end(), [&n](const Asleep& a) {
        return a.accesses.empty() && std::any_of(n.offered.begin(), n.offered.end(),
                                                 [&a](const sim::Candidate& c) { return c.choice == a.choice; });
      });
      if (dead) continue;
      // Runs child c; false when the execution ended there (a leaf, counted).
      const auto expand = [&](const sim::Candidate& c, const std::vector<Asleep>& sleep, Node& child) {
        child.prefix = n.prefix;
        child.prefix.push_back(c.choice);
        PrefixRun run(child.prefix);
        executor.run(run, out.replays++);
        out.steps += child.prefix.size();
        const auto done = run.last_accesses();
        DporStrategy::keep_asleep(sleep, c.choice, done, child.sleep);
        child.offered = std::move(run.offered());
        child.steps = n.steps;
        const std::uint32_t p = process_of(c.choice);
        if (p >= child.steps.size()) child.steps.resize(p + 1, 0);
        ++child.steps[p];
        return std::pair{run.reached(),
                         Asleep{c.choice, DporStrategy::Small<sim::StepAccess>(done.begin(), done.end())}};
      };
      // A thread's step that touches nothing (a store into its buffer) commutes with every
      // step of every other process, and nothing sleeps on it: every class below this node
      // has an execution that takes it first, so the node's one child is that step, with the
      // node's sleep set (persistent sets of one, Godefroid 1996). Only the dead branches go.
      bool alone = false;
      for (const sim::Candidate& c : std::ranges::reverse_view(n.offered)) {
        if (c.choice.kind != sim::Choice::Kind::step || !is_store(c.op.kind) || asleep(n.sleep, c.choice)) continue;
        const std::pair<int, int> kind{static_cast<int>(c.op.kind), static_cast<int>(c.op.order)};
        if (const auto known = quiet_stores.find(kind); known != quiet_stores.end() && !known->second) continue;
        Node child;
        const auto [reached, step] = expand(c, n.sleep, child);
        quiet_stores[kind] = step.accesses.empty();
        if (!step.accesses.empty()) continue;
        alone = true;
        if (!reached) {
          out.executions += weights[i];
        } else {
          next.add(std::move(child), weights[i]);
        }
        break;
      }
      if (alone) continue;
      std::vector<Asleep> sleep = n.sleep;  // grows by the siblings tried
      // Drains first (search_estimate.hpp): candidates come threads first, then drains.
      for (const sim::Candidate& c : std::ranges::reverse_view(n.offered)) {
        if (asleep(n.sleep, c.choice)) continue;
        Node child;
        auto [reached, step] = expand(c, sleep, child);
        if (!reached) {
          out.executions += weights[i];
        } else {
          next.add(std::move(child), weights[i]);
        }
        sleep.push_back(std::move(step));
      }
    }
    out.overflowed = out.overflowed || next.overflowed();
    level = std::move(next.nodes());
    weights = std::move(next.weights());
  }
  return out;
}

// The 0.975 quantile of Student's t with `df` degrees of freedom.
double t975(std::uint64_t df) {
  static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                     2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                     2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  return df <= 30 ? table[df - 1] : 1.96 + 2.4 / static_cast<double>(df);
}

}  // namespace

SearchEstimate estimate_search(Executor& executor, const EstimateOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  SearchEstimate e;
  std::size_t most =
      options.strata == 0 ? std::clamp<std::size_t>(options.first_strata, 1, kMostStrata) : options.strata;
  const double budget =
      options.strata == 0 ? static_cast<double>(options.steps_per_probe) : std::numeric_limits<double>::infinity();
  StoreKinds quiet_stores;
  double mean = 0, m2 = 0;
  double first = -1;
  bool exact = true;
  for (std::uint64_t k = 0; k < options.probes; ++k) {
    // A probe past the budget is abandoned and the strata narrowed to a quarter of the widest
    // level it kept, until one fits; the probes after it keep that bound. Which bound is
    // chosen depends on the program alone (the probes are seeded), and every probe that
    // counts ran with a bound fixed before it began, so each is unbiased.
    ProbeResult r = probe(executor, most, budget, sim::Rng::derive(options.seed, k), quiet_stores);
    while (r.aborted) {
      e.replays += r.replays;
      most = std::max<std::size_t>(1, std::min<std::size_t>(most, r.widest) / 4);
      r = probe(executor, most, most == 1 ? std::numeric_limits<double>::infinity() : budget,
                sim::Rng::derive(options.seed, k), quiet_stores);
    }
    // Probes that never merged two strata and agree have most likely counted the tree
    // exactly (each stratum's nodes had equal subtrees): two suffice. A program whose
    // values steer it gives probes that differ, and all of them run.
    exact = exact && !r.overflowed && (first < 0 || r.executions == first);
    if (first < 0) first = r.executions;
    e.replays += r.replays;
    ++e.probes;
    const double delta = r.executions - mean;
    mean += delta / static_cast<double>(e.probes);
    m2 += delta * (r.executions - mean);
    if (exact && e.probes == 2) break;
  }
  e.strata = most;
  e.executions = mean;
  if (e.probes > 1)
    e.half_width =
        t975(e.probes - 1) * std::sqrt(m2 / static_cast<double>(e.probes - 1) / static_cast<double>(e.probes));
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return e;
}

}  // namespace lockstep::model
