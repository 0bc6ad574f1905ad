#include "sim/exec/placement.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace lockstep::sim {

CpuTree::CpuTree(const std::vector<int>& core_of_cpu, const std::vector<NodeId>& node_of_cpu) {
  const std::size_t n = node_of_cpu.size();
  if (n == 0 || (!core_of_cpu.empty() && core_of_cpu.size() != n))
    throw std::invalid_argument("CpuTree: one core and one node per CPU");
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
  build(kMachine, [](std::size_t) { return 0LL; });
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

// The least loaded CPU of `group`, the first on ties.
CpuId least_of(const std::vector<CpuId>& group, const Loads& loads) {
  return *std::min_element(group.begin(), group.end(), [&loads](CpuId a, CpuId b) {
    return loads[static_cast<std::size_t>(a)] < loads[static_cast<std::size_t>(b)];
  });
}

}  // namespace

CpuId most_idle(const Loads& loads) {
  return static_cast<CpuId>(std::min_element(loads.begin(), loads.end()) - loads.begin());
}

CpuId least_loaded_path(const CpuTree& tree, const Loads& loads) {
  // Packages by load (the least loaded path's first step below the machine), then, inside
  // the package, its cores by load, then the core's least loaded hardware thread.
  const auto& packages = tree.groups(CpuTree::kPackage);
  const std::vector<CpuId>* best = &packages.front();
  for (const auto& p : packages)
    if (load_of(p, loads) < load_of(*best, loads)) best = &p;
  const std::vector<CpuId>* best_core = nullptr;
  std::uint64_t best_core_load = 0;
  for (CpuId cpu : *best) {
    const std::vector<CpuId>& core = tree.group(CpuTree::kCore, cpu);
    if (core.front() != cpu) continue;  // each core once, by its first CPU
    const std::uint64_t l = load_of(core, loads);
    if (best_core == nullptr || l < best_core_load) {
      best_core = &core;
      best_core_load = l;
    }
  }
  return least_of(*best_core, loads);
}

CpuId pick_affine(const CpuTree& tree, const Loads& loads, CpuId last, int affinity) {
  if (loads[static_cast<std::size_t>(last)] == 0) return last;
  // An idle CPU on a wholly idle core within reach first, then any idle CPU within reach: an
  // SMT sibling of a busy thread shares its pipeline, the seed's "much stronger disincentive".
  for (const bool whole_core : {true, false})
    for (int level = CpuTree::kCore; level <= affinity; ++level)
      for (CpuId c : tree.group(level, last)) {
        if (loads[static_cast<std::size_t>(c)] != 0) continue;
        if (whole_core && load_of(tree.group(CpuTree::kCore, c), loads) != 0) continue;
        return c;
      }
  return least_loaded_path(tree, loads);
}

std::optional<CpuId> steal_from(const CpuTree& tree, const Loads& queued, CpuId idle, ThreadPlacement policy) {
  const int first = policy == ThreadPlacement::topology ? CpuTree::kCore : CpuTree::kMachine;
  for (int level = first; level < CpuTree::kLevels; ++level) {
    std::optional<CpuId> victim;
    for (CpuId c : tree.group(level, idle)) {
      if (c == idle || queued[static_cast<std::size_t>(c)] == 0) continue;
      if (!victim || queued[static_cast<std::size_t>(c)] > queued[static_cast<std::size_t>(*victim)]) victim = c;
    }
    if (victim) return victim;
  }
  return std::nullopt;
}

}  // namespace lockstep::sim
