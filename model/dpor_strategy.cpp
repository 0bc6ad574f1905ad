#include "model/dpor_strategy.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "model/work_units.hpp"

namespace lockstep::model {

namespace {
template <typename V>
bool contains(const V& v, const sim::Choice& c) {
  return std::find(v.begin(), v.end(), c) != v.end();
}
}  // namespace

bool DporStrategy::asleep(const Node& n, const sim::Choice& c) {
  return std::any_of(n.sleep.begin(), n.sleep.end(), [&c](const Asleep& a) { return a.choice == c; });
}

// Taken at n already: the branch being explored, asleep, or handed out early.
bool DporStrategy::handed_out(const Node& n, const sim::Choice& c) {
  return (n.has_chosen && c == n.chosen) || asleep(n, c) ||
         std::any_of(n.early.begin(), n.early.end(), [&c](const Asleep& a) { return a.choice == c; });
}

std::size_t DporStrategy::pick(std::span<const sim::Candidate> candidates) {
  const std::size_t i = depth_++;
  if (i < size_) {  // re-running the prefix of the branch being explored
    const sim::Choice want = stack_[i].chosen;
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (candidates[k].choice == want) return k;
    throw std::logic_error(fmt::format(
        "dfs: step {} of a re-run differs from the first run (thread {} is not enabled): the scenario is not "
        "deterministic",
        i, want.thread));
  }
  if (size_ == stack_.size()) stack_.emplace_back();
  Node& n = stack_[size_++];
  n.enabled.clear();
  n.backtrack.clear();
  n.sleep.clear();
  n.early.clear();
  n.scanned = 0;
  n.has_chosen = false;
  n.since = executions_ - 1;  // this execution is its branch's first
  for (const sim::Candidate& c : candidates) n.enabled.push_back(c.choice);
  if (i > 0) keep_asleep(stack_[i - 1].sleep, log_.steps[i - 1].choice, log_.accesses_of(log_.steps[i - 1]), n.sleep);
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    if (asleep(n, candidates[k].choice)) continue;
    n.chosen = candidates[k].choice;
    n.has_chosen = true;
    n.backtrack.push_back(n.chosen);
    return k;
  }
  return kAbandon;  // every enabled choice sleeps: whatever follows is covered
}

std::optional<nlohmann::json> DporStrategy::save_state() const {
  if (frozen_ != 0) return std::nullopt;
  return nlohmann::json{{"kind", "dfs"}, {"stack", encode_stack()}, {"internal_errors", internal_errors_}};
}

void DporStrategy::restore_state(const nlohmann::json& state) {
  if (state.at("kind") != "dfs") throw std::runtime_error("checkpoint: not a dfs search's");
  stack_ = decode_dpor_subtree(state.at("stack")).nodes;
  size_ = stack_.size();
  frozen_ = 0;
  internal_errors_ = state.at("internal_errors").get<std::uint64_t>();
  exhausted_ = false;
}

// The current branch's nodes, whole (a checkpoint's stack).
nlohmann::json DporStrategy::encode_stack() const {
  return encode_subtree(
      Subtree{std::vector<Node>(stack_.begin(), stack_.begin() + static_cast<std::ptrdiff_t>(size_)), {}});
}

nlohmann::json DporStrategy::save_subtree_state() const {
  nlohmann::json requests = nlohmann::json::array();
  for (const Request& r : requests_) requests.push_back(encode_request(r));
  return {{"stack", encode_stack()},
          {"frozen", frozen_},
          {"requests", std::move(requests)},
          {"internal_errors", internal_errors_}};
}

DporStrategy DporStrategy::restore_subtree_state(const nlohmann::json& state) {
  DporStrategy s(decode_dpor_subtree(state.at("stack")));
  s.frozen_ = state.at("frozen").get<std::size_t>();
  if (s.frozen_ > s.size_) throw std::runtime_error("checkpoint: a running unit's root path is longer than its stack");
  for (const auto& r : state.at("requests")) s.requests_.push_back(decode_request(r));
  s.internal_errors_ = state.at("internal_errors").get<std::uint64_t>();
  return s;
}

DporStrategy::DporStrategy(Subtree subtree)
    : stack_(std::move(subtree.nodes)),
      size_(stack_.size()),
      frozen_(stack_.size()),
      covered_(std::move(subtree.covered)) {}

// The race (first, second) reversed: the state before `first` must try one of the processes
// that can begin `v`, the steps after `first` that do not happen after it, then `second`.
void DporStrategy::reverse(const CausalOrder& order, const Race& race) {
  const bool mine = race.first >= frozen_;  // else a request for whoever owns that node
  const Node& n = stack_[race.first];
  // An initial already tried or asleep at the node covers the race. Above the root, that is
  // what the owner was known to cover (Subtree::covered): a request naming it would be
  // dropped there. On mc-four-threads-7-tso with 16 workers, building those requests on
  // every execution was 3.0 G of the 6.7 G instructions the split added (callgrind).
  const Small<sim::Choice>* owner_covers = !mine && race.first < covered_.size() ? &covered_[race.first] : nullptr;
  const auto covered = [&](const sim::Choice& c) {
    return mine ? contains(n.backtrack, c) || asleep(n, c) : owner_covers != nullptr && contains(*owner_covers, c);
  };
  std::vector<std::uint32_t>& v = notdep_;
  v.clear();
  for (std::uint32_t k = race.first + 1; k < race.second; ++k)
    if (!order.happens_before(race.first, k)) v.push_back(k);
  v.push_back(race.second);
  Small<sim::Choice> initials;
  for (std::size_t x = 0; x < v.size(); ++x) {
    bool initial = true;
    for (std::size_t y = 0; y < x && initial; ++y) initial = !order.happens_before(v[y], v[x]);
    if (!initial) continue;
    const sim::Choice c = log_.steps[v[x]].choice;
    if (covered(c)) return;
    if (!contains(initials, c)) initials.push_back(c);
  }
  if (!mine) {
    if (!first_request(race.first, {initials.data(), initials.size()})) return;
    requests_.push_back(Request{race.first, std::vector<sim::Choice>(initials.begin(), initials.end())});
    return;
  }
  add_initial(stack_[race.first], {initials.data(), initials.size()});
}

// A request equal to one already made is a no-op wherever it is applied (the first made the
// node try one of its initials, or found one covered; backtrack and sleep sets only grow),
// so it is not repeated: a subtree's executions race with the same steps above it over and
// over, and the parallel search copies every request up the tree.
bool DporStrategy::first_request(std::uint32_t node, std::span<const sim::Choice> initials) {
  // Most keys fit in 64 bits exactly: the node (below 2^14) in bits 0-13, how many initials
  // (up to three) in bits 14-15, each initial (its kind, a thread below 2^15) in 16 bits
  // above. A set of integers: no allocation per race. Other keys are spelled as bytes.
  const auto code = [](const sim::Choice& c) {
    return (static_cast<std::uint64_t>(c.kind) << 15) | static_cast<std::uint64_t>(c.thread);
  };
  const bool small =
      node < (1U << 14) && initials.size() <= 3 &&
      std::all_of(initials.begin(), initials.end(), [](const sim::Choice& c) { return c.thread < (1U << 15); });
  if (small) {
    std::uint64_t key = node | (std::uint64_t{initials.size()} << 14);
    for (std::size_t k = 0; k < initials.size(); ++k) key |= code(initials[k]) << (16 * (k + 1));
    return requested_small_.insert(key).second;
  }
  std::string key(sizeof node, '\0');
  std::memcpy(key.data(), &node, sizeof node);
  for (const sim::Choice& c : initials) {
    const std::uint32_t word = (static_cast<std::uint32_t>(c.kind) << 31) | static_cast<std::uint32_t>(c.thread);
    key.append(reinterpret_cast<const char*>(&word), sizeof word);
  }
  return requested_.insert(std::move(key)).second;
}

void DporStrategy::forward(const Request& r) {
  if (first_request(r.node, r.initials)) requests_.push_back(r);
}

void DporStrategy::apply(const Request& r) {
  Node& n = stack_[r.node];
  for (const sim::Choice& c : r.initials)
    if (contains(n.backtrack, c) || asleep(n, c)) return;  // already covered
  add_initial(n, r.initials);
}

void DporStrategy::add_initial(Node& n, std::span<const sim::Choice> initials) {
  for (const sim::Choice& c : initials) {
    if (contains(n.enabled, c)) {
      n.backtrack.push_back(c);
      return;
    }
  }
  // No initial is enabled here. It cannot happen when the engine's causal edges order every
  // step after what enabled it, so it is a checker bug: abort in debug builds; in release,
  // count it (the run then exits 3) and fall back to trying everything, which is sound.
  internal_error("dfs: a race's reversal has no initial enabled at its node");
  for (const sim::Choice& c : n.enabled)
    if (!contains(n.backtrack, c) && !asleep(n, c)) n.backtrack.push_back(c);
}

void DporStrategy::internal_error(const char* what) {
#ifdef LOCKSTEP_ABORT_ON_INTERNAL_ERROR
  std::fprintf(stderr, "lockstep: internal error: %s\n", what);
  std::abort();
#else
  (void)what;
  ++internal_errors_;
#endif
}

bool DporStrategy::next(const sim::ExecutionResult&) { return advance() == Next::run; }

DporStrategy::Next DporStrategy::advance() {
  analyse();
  return backtrack();
}

// A subtree's root path (nodes below frozen_ - 1) replays its parent's current branch, which
// the parent analysed before handing the subtree out. A race between two of those steps
// depends on them and the steps between them only, so the parent met it already: it reversed
// it (a backtrack entry at its node, so the same request from here would find it covered)
// or requested it (so its first_request would drop ours). Those races are skipped here: on
// every execution of a subtree, and above all on its first, which found every race of the
// root path anew, built a request for each and copied it up the chain of parents, to be
// dropped there (about 30,000 instructions a subtree on fib_bench with 2 workers, a tenth of
// what a subtree cost in all). The race of the subtree's first step (node frozen_ - 1) is
// new and is analysed.
void DporStrategy::analyse() {
  races_.clear();
  order_.analyse(log_, &races_);
  const std::size_t replayed = frozen_ > 0 ? frozen_ - 1 : 0;
  for (const Race& r : races_)
    if (r.second >= replayed) reverse(order_, r);
}

std::size_t DporStrategy::pending_depth(unsigned k) const {
  unsigned seen = 0;
  std::size_t last = size_;
  for (std::size_t i = frozen_; i < size_; ++i) {
    const Node& n = stack_[i];
    const bool pending = std::any_of(n.backtrack.begin(), n.backtrack.end(), [&n](const sim::Choice& c) {
      return !(n.has_chosen && c == n.chosen) && !asleep(n, c);
    });
    if (!pending) continue;
    last = i;
    if (++seen == k) return i;
  }
  return last;
}

DporStrategy::Next DporStrategy::backtrack() {
  while (size_ > frozen_) {
    const std::size_t i = size_ - 1;
    Node& n = stack_[i];
    if (n.has_chosen) {  // the branch through n.chosen is explored: it sleeps from now on
      const auto acc = log_.accesses_of(log_.steps[i]);
      n.sleep.push_back(Asleep{n.chosen, Small<sim::StepAccess>(acc.begin(), acc.end())});
      n.has_chosen = false;
    }
    const bool handed_out = !n.early.empty();
    for (Asleep& a : n.early) n.sleep.push_back(std::move(a));
    n.early.clear();
    if (handed_out) return Next::spawn;  // their subtrees are merged, then the rest taken there
    for (const sim::Choice& c : n.backtrack) {
      if (asleep(n, c)) continue;
      if (i < spawn_above_) return Next::spawn;
      n.chosen = c;
      n.has_chosen = true;
      n.since = executions_;
      return Next::run;
    }
    --size_;
  }
  exhausted_ = true;
  return Next::done;
}

std::optional<DporStrategy::Subtree> DporStrategy::take_early(std::size_t i, const FirstStep& first_step) {
  if (i >= spawn_above_) return std::nullopt;
  return take_at(i, first_step);
}

std::optional<std::size_t> DporStrategy::shallowest_untaken(std::size_t from, std::uint64_t min_runs) const {
  std::optional<std::size_t> shallowest;
  for (std::size_t i = std::max(from, frozen_); i < size_; ++i) {
    const Node& n = stack_[i];
    if (!n.has_chosen) continue;
    if (std::all_of(n.backtrack.begin(), n.backtrack.end(), [&n](const sim::Choice& c) { return handed_out(n, c); }))
      continue;
    if (shallowest) return shallowest;  // a deeper one too
    if (executions_ - n.since < min_runs) return std::nullopt;
    shallowest = i;
  }
  return std::nullopt;
}

std::optional<DporStrategy::Subtree> DporStrategy::take_at(std::size_t i, const FirstStep& first_step) {
  if (i < frozen_ || i >= size_ || !stack_[i].has_chosen) return std::nullopt;
  Node& n = stack_[i];
  // Entries once taken stay taken (the sleep set at i does not change while its chosen branch
  // is explored), so each entry is looked at once.
  for (; n.scanned < n.backtrack.size(); ++n.scanned) {
    const sim::Choice c = n.backtrack[n.scanned];
    if (handed_out(n, c)) continue;
    Subtree t = branch_at(i, c);
    const std::vector<sim::StepAccess> acc = first_step(t);
    n.early.push_back(Asleep{c, Small<sim::StepAccess>(acc.begin(), acc.end())});
    return t;
  }
  return std::nullopt;
}

// The subtree of branch c at node i of the current branch, as take_early hands it out: the
// root path's choices, and at i the sleep set the search gives c when it backtracks there
// (what sleeps at i, the branch being explored through i, the branches handed out before c).
// Nothing else of the root path: a subtree's search reads its nodes' choices and its root's
// sleep set only, and its encoding names its work unit (model/unit_cache.hpp), so it must not
// depend on what the owner's search had found when it was handed out.
DporStrategy::Subtree DporStrategy::branch_at(std::size_t i, const sim::Choice& c) const {
  Subtree t = prefix(i + 1);
  const Node& n = stack_[i];
  Node& root = t.nodes.back();
  if (n.has_chosen) {
    const auto chosen = log_.accesses_of(log_.steps[i]);
    root.sleep.push_back(Asleep{n.chosen, Small<sim::StepAccess>(chosen.begin(), chosen.end())});
  }
  for (const Asleep& a : n.early) root.sleep.push_back(a);
  root.chosen = c;
  root.has_chosen = true;
  return t;
}

// The first n nodes of the current branch as a subtree's root path: their choices, and the
// last one's sleep set; and what each node covers (Subtree::covered): at a node this search
// owns, its backtrack and sleep sets now; above its own root, what its owner covered.
DporStrategy::Subtree DporStrategy::prefix(std::size_t n) const {
  Subtree t;
  t.nodes.resize(n);
  t.covered.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const Node& from = stack_[k];
    t.nodes[k].chosen = from.chosen;
    t.nodes[k].has_chosen = from.has_chosen;
    if (k < frozen_) {
      if (k < covered_.size()) t.covered[k] = covered_[k];
      continue;
    }
    t.covered[k] = from.backtrack;
    for (const Asleep& a : from.sleep)
      if (!contains(t.covered[k], a.choice)) t.covered[k].push_back(a.choice);
  }
  if (n > 0) t.nodes.back().sleep = stack_[n - 1].sleep;
  return t;
}

std::optional<DporStrategy::Subtree> DporStrategy::take_branch(const FirstStep& first_step) {
  Node& n = stack_[size_ - 1];
  for (const sim::Choice& c : n.backtrack) {
    if (asleep(n, c)) continue;
    Subtree t = prefix(size_);  // backtrack() put the chosen branch and the early ones to sleep
    t.nodes.back().chosen = c;
    t.nodes.back().has_chosen = true;
    const std::vector<sim::StepAccess> acc = first_step(t);
    n.sleep.push_back(Asleep{c, Small<sim::StepAccess>(acc.begin(), acc.end())});
    return t;
  }
  return std::nullopt;
}

}  // namespace lockstep::model
