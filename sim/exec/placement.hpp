// Where a simulated thread runs (docs/os.md, "Topology-aware placement"): the seed's ULE
// topology scheduler (docs/sources.md section 8, "non-uniform cpu scheduling", 2008) against
// pinned threads and the "most idle CPU" rule it replaced.
//
// The machine as a tree of sharing levels: hardware threads of a core, the cores of a
// package (its L3 and memory controller), the machine. Policies:
//
//   pinned    a thread runs on the CPU its workload gave it (every result before this)
//   simple    a thread starting or waking goes to the CPU with the least load (running plus
//             queued), the lowest-numbered on ties; an idle CPU steals from the most loaded
//   topology  ULE: a waking thread walks up the tree from its last CPU to the widest level
//             it has affinity for (its package) and takes an idle CPU there, its own first;
//             a starting thread, or one with no idle CPU in reach, takes the least loaded
//             CPU on the least loaded path from the top of the tree; a CPU running out of
//             work steals from the nearest busy CPU outward (the idle-time balancer)
//
// Each decision is a pure function of the tree and the CPUs' loads, so tests check them on
// hand-made machines (tests/test_placement.cpp). The engine applies them in timed mode; a
// search (explore mode) lets any thread run next whatever its CPU.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/platform.hpp"

namespace lockstep::sim {

enum class ThreadPlacement : std::uint8_t { pinned, simple, topology };
inline constexpr std::array<std::string_view, 3> kPlacementNames{"pinned", "simple", "topology"};

class CpuTree {
 public:
  // Levels, narrowest first: 0 the hardware threads of a core, 1 a package (a node), 2 the
  // machine. `core_of_cpu` may be empty (every CPU a core of its own).
  CpuTree(const std::vector<int>& core_of_cpu, const std::vector<NodeId>& node_of_cpu);
  static constexpr int kLevels = 3;
  static constexpr int kCore = 0;
  static constexpr int kPackage = 1;
  static constexpr int kMachine = 2;
  int cpus() const { return static_cast<int>(group_.front().size()); }
  // The CPUs of `cpu`'s group at `level`, in CPU order.
  const std::vector<CpuId>& group(int level, CpuId cpu) const;
  // The groups at `level` (the machine has one).
  const std::vector<std::vector<CpuId>>& groups(int level) const { return groups_[static_cast<std::size_t>(level)]; }

 private:
  std::array<std::vector<std::vector<CpuId>>, kLevels> groups_;
  std::array<std::vector<std::size_t>, kLevels> group_;  // per level, per CPU: its group's index
};

// A CPU's load: 1 while it runs a thread, plus its queued threads.
using Loads = std::vector<std::uint32_t>;

// The CPU with the least load, the lowest-numbered on ties ("simple").
CpuId most_idle(const Loads& loads);
// Down from the top of the tree, into the least loaded group at each level (the lowest
// index on ties), to the least loaded CPU of the last ("topology" without affinity).
CpuId least_loaded_path(const CpuTree& tree, const Loads& loads);
// A waking thread last on `last`: an idle CPU of the narrowest group around `last` up to
// `affinity` that has one (`last` itself first), else least_loaded_path ("topology").
CpuId pick_affine(const CpuTree& tree, const Loads& loads, CpuId last, int affinity);
// The CPU that `idle` steals a queued thread from, if any: "topology", the nearest level
// outward holding a CPU with queued threads, its most queued there; "simple", the most
// queued anywhere. `queued` counts ready threads waiting, not the running one.
std::optional<CpuId> steal_from(const CpuTree& tree, const Loads& queued, CpuId idle, ThreadPlacement policy);

}  // namespace lockstep::sim
