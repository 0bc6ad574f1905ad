#include "sim/exec/placement.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <stdexcept>

namespace lockstep::sim {

CpuTree::CpuTree(const std::vector<int>& core_of_cpu, const std::vector<NodeId>& node_of_cpu,
                 const std::vector<int>& board_of_cpu) {
  const std::size_t n = node_of_cpu.size();
  if (n == 0 || (!core_of_cpu.empty() && core_of_cpu.size() != n) ||
      (!board_of_cpu.empty() && board_of_cpu.size() != n))
    throw std::invalid_argument("CpuTree: one core, one node and one board per CPU");
  auto build = [this, n](int level, auto key_of) {
    std::map<long long, std::size_t> index;  // key -> group, groups in order of their first CPU
    auto& groups = groups_[static_cast<std::size_t>(level)];
    auto& group = group_[static_cast<std::size_t>(level)];
    group.resize(n);
    for (std::size_t cpu = 0; cpu < n; ++cpu) {
      const auto [it, fresh] = index.emplace(key_of(cpu), groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(static_cast<CpuId>(cpu));
      group[cpu] = it->second;
    }
  };
  build(kCore, [&core_of_cpu](std::size_t cpu) {
    return core_of_cpu.empty() ? static_cast<long long>(cpu) : static_cast<long long>(core_of_cpu[cpu]);
  });
  build(kPackage, [&node_of_cpu](std::size_t cpu) { return static_cast<long long>(node_of_cpu[cpu]); });
  build(kBoard, [&board_of_cpu](std::size_t cpu) {
    return board_of_cpu.empty() ? 0LL : static_cast<long long>(board_of_cpu[cpu]);
  });
  build(kMachine, [](std::size_t) { return 0LL; });
  // Each level's groups must nest in the next one's: a package on two boards is no tree.
  for (int level = kCore; level + 1 < kLevels; ++level)
    for (const auto& g : groups_[static_cast<std::size_t>(level)])
      for (CpuId cpu : g)
        if (&group(level + 1, cpu) != &group(level + 1, g.front()))
          throw std::invalid_argument("CpuTree: a group straddles two groups of the level above");
}

const std::vector<CpuId>& CpuTree::group(int level, CpuId cpu) const {
  const auto l = static_cast<std::size_t>(level);
  return groups_[l][group_[l][static_cast<std::size_t>(cpu)]];
}

namespace {

std::uint64_t load_of(const std::vector<CpuId>& group, const Loads& loads) {
  std::uint64_t sum = 0;
  for (CpuId c : group) sum += loads[static_cast<std::size_t>(c)];
  return sum;
}

}  // namespace

CpuId most_idle(const Loads& loads) {
  return static_cast<CpuId>(std::min_element(loads.begin(), loads.end()) - loads.begin());
}

namespace {

// The first idle CPU of `group` on a wholly idle core, or with `whole_core` false any idle one.
std::optional<CpuId> idle_in(const CpuTree& tree, const Loads& loads, const std::vector<CpuId>& group,
                             bool whole_core) {
  for (CpuId c : group) {
    if (loads[static_cast<std::size_t>(c)] != 0) continue;
    if (whole_core && load_of(tree.group(CpuTree::kCore, c), loads) != 0) continue;
    return c;
  }
  return std::nullopt;
}

}  // namespace

CpuId pick_affine(const CpuTree& tree, const Loads& loads, CpuId last, int affinity) {
  if (loads[static_cast<std::size_t>(last)] == 0) return last;
  // An idle CPU on a wholly idle core within reach first, then any idle CPU within reach: an
  // SMT sibling of a busy thread shares its pipeline, the seed's "much stronger disincentive".
  for (const bool whole_core : {true, false})
    for (int level = CpuTree::kCore; level <= affinity; ++level)
      if (const auto c = idle_in(tree, loads, tree.group(level, last), whole_core)) return *c;
  return least_loaded_path(tree, loads);
}

std::optional<CpuId> pick_near(const CpuTree& tree, const Loads& loads, CpuId last, CpuId partner_cpu) {
  const std::vector<CpuId>& package = tree.group(CpuTree::kPackage, partner_cpu);
  if (loads[static_cast<std::size_t>(last)] == 0 && &tree.group(CpuTree::kPackage, last) == &package) return last;
  for (const bool whole_core : {true, false})
    if (const auto c = idle_in(tree, loads, package, whole_core)) return c;
  return std::nullopt;
}

int affinity_level(std::uint64_t ticks_since_ran) {
  constexpr std::uint64_t kAffinityTicks = 1;  // SCHED_AFFINITY_DEFAULT at hz = 1000
  constexpr std::uint64_t kShareL3 = 3;        // CG_SHARE_L3: a package
  constexpr std::uint64_t kShareL2 = 2;        // CG_SHARE_L2: a core
  if (ticks_since_ran < kShareL3 * kAffinityTicks) return CpuTree::kPackage;
  if (ticks_since_ran < kShareL2 * kAffinityTicks) return CpuTree::kCore;  // never wider than L3's window
  return kNoAffinity;
}

std::uint32_t steal_threshold(int cpus) {
  const int fls = std::bit_width(static_cast<unsigned>(std::max(cpus, 1)));  // fls(): the highest set bit, from 1
  return static_cast<std::uint32_t>(std::min(fls - 1, 3));
}

std::optional<CpuId> steal_from(const CpuTree& tree, const Loads& loads, const Loads& queued, CpuId idle,
                                ThreadPlacement policy) {
  const bool topology = uses_topology(policy);
  const int first = topology ? CpuTree::kCore : CpuTree::kMachine;
  for (int level = first; level < CpuTree::kLevels; ++level) {
    // ULE's threshold counts the running thread too; a hardware thread steals any queued one.
    const std::uint32_t thresh = !topology || level == CpuTree::kCore ? 1 : steal_threshold(tree.cpus());
    std::optional<CpuId> victim;
    for (CpuId c : tree.group(level, idle)) {
      const auto i = static_cast<std::size_t>(c);
      if (c == idle || queued[i] == 0 || loads[i] < thresh) continue;
      const Loads& by = topology ? loads : queued;
      if (!victim || by[i] > by[static_cast<std::size_t>(*victim)]) victim = c;
    }
    if (victim) return victim;
  }
  return std::nullopt;
}

namespace {

// The groups one level down inside `group` (at `level` above the hardware threads), in the
// order of their first CPUs.
std::vector<const std::vector<CpuId>*> children(const CpuTree& tree, int level, const std::vector<CpuId>& group) {
  std::vector<const std::vector<CpuId>*> out;
  for (CpuId cpu : group) {
    const std::vector<CpuId>& child = tree.group(level - 1, cpu);
    if (std::find(out.begin(), out.end(), &child) == out.end()) out.push_back(&child);
  }
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->front() < b->front(); });
  return out;
}

// ULE's cpu_search: down the least (or most) loaded path of `group` to its least (most)
// loaded CPU that `eligible` admits; a child with no eligible CPU is passed over. Ties go to
// the first group and CPU.
template <typename Eligible>
std::optional<CpuId> search_path(const CpuTree& tree, int level, const std::vector<CpuId>& group, const Loads& loads,
                                 bool highest, const Eligible& eligible) {
  const auto better = [highest](std::uint64_t a, std::uint64_t b) { return highest ? a > b : a < b; };
  if (level == CpuTree::kCore) {
    std::optional<CpuId> best;
    for (CpuId c : group)
      if (eligible(c) && (!best || better(loads[static_cast<std::size_t>(c)], loads[static_cast<std::size_t>(*best)])))
        best = c;
    return best;
  }
  std::optional<CpuId> best;
  std::uint64_t best_load = 0;
  for (const std::vector<CpuId>* child : children(tree, level, group)) {
    const std::uint64_t l = load_of(*child, loads);
    if (best && !better(l, best_load)) continue;
    if (const auto found = search_path(tree, level - 1, *child, loads, highest, eligible)) {
      best = found;
      best_load = l;
    }
  }
  return best;
}

void balance_group(const CpuTree& tree, int level, const std::vector<CpuId>& group, Loads& loads, Loads& queued,
                   std::vector<BalanceMove>& moves) {
  const auto high = search_path(tree, level, group, loads, true,
                                [&queued](CpuId c) { return queued[static_cast<std::size_t>(c)] > 0; });
  const auto low = search_path(tree, level, group, loads, false, [](CpuId) { return true; });
  if (high && low && *high != *low) {
    const auto h = static_cast<std::size_t>(*high);
    const auto l = static_cast<std::size_t>(*low);
    if (loads[h] >= loads[l] + 2) {
      const std::uint32_t diff = loads[h] - loads[l];
      const std::uint32_t move = std::min(diff / 2 + diff % 2, queued[h]);
      for (std::uint32_t i = 0; i < move; ++i) {
        --queued[h];
        --loads[h];
        if (loads[l]++ > 0) ++queued[l];  // onto an idle CPU the thread runs at once
        moves.push_back(BalanceMove{*high, *low});
      }
    }
  }
  if (level > CpuTree::kCore)
    for (const std::vector<CpuId>* child : children(tree, level, group))
      balance_group(tree, level - 1, *child, loads, queued, moves);
}

}  // namespace

CpuId least_loaded_path(const CpuTree& tree, const Loads& loads) {
  // ULE's sched_lowest over the whole tree: boards, packages, cores by load, then the core's
  // least loaded hardware thread (the first on ties at every level).
  return *search_path(tree, CpuTree::kMachine, tree.groups(CpuTree::kMachine).front(), loads, false,
                      [](CpuId) { return true; });
}

std::vector<BalanceMove> balance_moves(const CpuTree& tree, Loads loads, Loads queued) {
  std::vector<BalanceMove> moves;
  balance_group(tree, CpuTree::kMachine, tree.groups(CpuTree::kMachine).front(), loads, queued, moves);
  return moves;
}

}  // namespace lockstep::sim
