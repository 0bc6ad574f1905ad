// Where a simulated thread runs (docs/os.md, "Topology-aware placement"): the seed's ULE
// topology scheduler (docs/sources.md section 8, "non-uniform cpu scheduling", 2008) against
// pinned threads and the "most idle CPU" rule it replaced.
//
// The machine as a tree of sharing levels: hardware threads of a core, the cores of a
// package (its L3 and memory controller), the packages of a board, the machine. Policies:
//
//   pinned    a thread runs on the CPU its workload gave it (every result before this)
//   simple    a thread starting or waking goes to the CPU with the least load (running plus
//             queued), the lowest-numbered on ties; an idle CPU steals from the most loaded
//   topology  ULE: a waking thread walks up the tree from its last CPU to the widest level
//             it still has affinity for (affinity_level: a level's affinity expires a few
//             ticks after the thread last ran) and takes an idle CPU there, its own first;
//             a starting thread, or one with no idle CPU in reach, takes the least loaded
//             CPU on the least loaded path from the top of the tree; a CPU running out of
//             work steals from the nearest CPU outward loaded past ULE's steal threshold
//             (the idle-time balancer); a periodic balancer evens out every level
//             (balance_moves), top down
//   sharing   topology, plus the seed's "when there is cache overlap between threads the
//             scheduler can now place them near-by each other in the topology": a waking
//             thread with a partner it shares lines with (CacheOverlap, measured in the
//             simulation) takes an idle CPU in its partner's package (pick_near) before
//             ULE's choice. ULE of 2008 measures no overlap: this is the rule the seed says
//             the tree makes possible, not one FreeBSD shipped
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

enum class ThreadPlacement : std::uint8_t { pinned, simple, topology, sharing };
inline constexpr std::array<std::string_view, 4> kPlacementNames{"pinned", "simple", "topology", "sharing"};
// ULE's tree, affinity and balancers: topology and sharing.
constexpr bool uses_topology(ThreadPlacement p) {
  return p == ThreadPlacement::topology || p == ThreadPlacement::sharing;
}

class CpuTree {
 public:
  // Levels, narrowest first: 0 the hardware threads of a core, 1 a package (a node), 2 a
  // board (barcelona-8s has two: "basically two 4 socket boards"), 3 the machine.
  // `core_of_cpu` may be empty (every CPU a core of its own), `board_of_cpu` too (one board).
  CpuTree(const std::vector<int>& core_of_cpu, const std::vector<NodeId>& node_of_cpu,
          const std::vector<int>& board_of_cpu = {});
  static constexpr int kLevels = 4;
  static constexpr int kCore = 0;
  static constexpr int kPackage = 1;
  static constexpr int kBoard = 2;
  static constexpr int kMachine = 3;
  int cpus() const { return static_cast<int>(group_.front().size()); }
  // The CPUs of `cpu`'s group at `level`, in CPU order.
  const std::vector<CpuId>& group(int level, CpuId cpu) const;
  // The groups at `level` (the machine has one).
  const std::vector<std::vector<CpuId>>& groups(int level) const { return groups_[static_cast<std::size_t>(level)]; }

 private:
  std::array<std::vector<std::vector<CpuId>>, kLevels> groups_;
  std::array<std::vector<std::size_t>, kLevels> group_;  // per level, per CPU: its group's index
};

// ULE's periodic balancer's mean interval: balance_interval = realstathz statclock ticks
// (sched_initticks), about one second; each run draws the next between 0.5 and 1.5 times it.
inline constexpr std::uint64_t kUleBalanceIntervalNs = 1'000'000'000;

// A CPU's load: 1 while it runs a thread, plus its queued threads.
using Loads = std::vector<std::uint32_t>;

// No level of the tree: the thread's affinity has expired everywhere.
inline constexpr int kNoAffinity = -1;
// The widest level a thread that left its CPU `ticks_since_ran` whole scheduler ticks ago
// still has affinity for. ULE (sched_ule.c, SCHED_AFFINITY): a group sharing at cache level
// k (CG_SHARE_L2 = 2, CG_SHARE_L3 = 3) keeps affinity while fewer than k * affinity ticks
// have passed, affinity = SCHED_AFFINITY_DEFAULT = max(1, hz / 1000) = 1 tick at hz = 1000.
// A core (its private L2; its SMT threads share it) is level 2, a package (its L3) level 3.
int affinity_level(std::uint64_t ticks_since_ran);

// ULE's steal_thresh (sched_initticks): an idle CPU steals only from a CPU whose load is at
// least min(fls(ncpus) - 1, 3), so a CPU running one thread with one queued is left alone on
// a machine of 8 CPUs or more (the periodic balancer evens it out); from an SMT sibling,
// any queued thread (CG_FLAG_THREAD groups use a threshold of 1).
std::uint32_t steal_threshold(int cpus);

// The CPU with the least load, the lowest-numbered on ties ("simple").
CpuId most_idle(const Loads& loads);
// Down from the top of the tree, into the least loaded group at each level (the lowest
// index on ties), to the least loaded CPU of the last ("topology" without affinity).
CpuId least_loaded_path(const CpuTree& tree, const Loads& loads);
// A waking thread last on `last`: `last` if idle, else an idle CPU of the narrowest group
// around `last` up to the level `affinity` (affinity_level; kNoAffinity, none) that has
// one, else least_loaded_path ("topology").
CpuId pick_affine(const CpuTree& tree, const Loads& loads, CpuId last, int affinity);
// "sharing": a waking thread last on `last` whose partner (the thread it shares most lines
// with) is on `partner_cpu`: an idle CPU in the partner's package, `last` first, then one on
// a wholly idle core, then any (an SMT sibling: the seed's exception "unless there is
// significant cache overlap between threads"); none if the package has no idle CPU.
std::optional<CpuId> pick_near(const CpuTree& tree, const Loads& loads, CpuId last, CpuId partner_cpu);
// The CPU that `idle` steals a queued thread from, if any: "topology", the nearest level
// outward holding a CPU with queued threads and a load of at least the level's steal
// threshold, the most loaded there; "simple", the most queued anywhere. `queued` counts
// ready threads waiting, not the running one; `loads` both.
std::optional<CpuId> steal_from(const CpuTree& tree, const Loads& loads, const Loads& queued, CpuId idle,
                                ThreadPlacement policy);

// One queued thread to move from one CPU's queue to another's.
struct BalanceMove {
  CpuId from;
  CpuId to;
  friend bool operator==(const BalanceMove&, const BalanceMove&) = default;
};
// ULE's periodic balancer (sched_balance_group), from the top of the tree down: in each
// group, the most loaded CPU with queued threads on the most loaded path gives half the
// difference (rounded up, at most what it has queued) to the least loaded CPU on the least
// loaded path, then each child group is balanced the same way. Unlike ULE's 2008 code, a
// difference of one moves nothing: moving would only swap which CPU has the extra thread.
std::vector<BalanceMove> balance_moves(const CpuTree& tree, Loads loads, Loads queued);

}  // namespace lockstep::sim
