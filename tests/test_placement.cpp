// Thread placement (sim/exec/placement.hpp, docs/os.md "Topology-aware placement"): each
// policy's decision on a hand-made machine of 2 packages x 2 cores x 2 hardware threads,
// numbered as Linux numbers them (CPUs 0-3 the cores' first threads, 4-7 their second;
// cores 0-1 on package 0, 2-3 on package 1).
#include <catch2/catch.hpp>

#include "sim/exec/cache_overlap.hpp"
#include "sim/exec/placement.hpp"

using namespace lockstep;       // NOLINT(google-build-using-namespace)
using namespace lockstep::sim;  // NOLINT(google-build-using-namespace)

namespace {

CpuTree machine() {
  const std::vector<int> core_of_cpu{0, 1, 2, 3, 0, 1, 2, 3};
  const std::vector<NodeId> node_of_cpu{0, 0, 1, 1, 0, 0, 1, 1};
  return CpuTree(core_of_cpu, node_of_cpu);
}

}  // namespace

TEST_CASE("placement: the tree's levels", "[placement]") {
  const CpuTree tree = machine();
  CHECK(tree.group(CpuTree::kCore, 1) == std::vector<CpuId>{1, 5});
  CHECK(tree.group(CpuTree::kPackage, 6) == std::vector<CpuId>{2, 3, 6, 7});
  CHECK(tree.group(CpuTree::kMachine, 3).size() == 8);
  CHECK(tree.groups(CpuTree::kPackage).size() == 2);
}

TEST_CASE("placement: simple takes the least loaded CPU, the lowest on ties", "[placement]") {
  CHECK(most_idle({0, 0, 0, 0, 0, 0, 0, 0}) == 0);
  CHECK(most_idle({1, 0, 0, 0, 0, 0, 0, 0}) == 1);  // a second thread: the same package
  CHECK(most_idle({1, 1, 2, 1, 1, 1, 0, 1}) == 6);
}

TEST_CASE("placement: topology starts threads on the least loaded path", "[placement]") {
  const CpuTree tree = machine();
  CHECK(least_loaded_path(tree, {0, 0, 0, 0, 0, 0, 0, 0}) == 0);
  // One thread on package 0: the next goes to package 1, not to CPU 1 (the seed's "wasting
  // half your cache").
  CHECK(least_loaded_path(tree, {1, 0, 0, 0, 0, 0, 0, 0}) == 2);
  // One thread a package: the next to an idle core of package 0, not to a busy core's sibling.
  CHECK(least_loaded_path(tree, {1, 0, 1, 0, 0, 0, 0, 0}) == 1);
  // Every core busy: a sibling on the least loaded package.
  CHECK(least_loaded_path(tree, {1, 1, 1, 2, 0, 0, 0, 0}) == 4);
}

TEST_CASE("placement: topology wakes a thread near its last CPU", "[placement]") {
  const CpuTree tree = machine();
  // Its last CPU is idle: there.
  CHECK(pick_affine(tree, {0, 1, 1, 1, 0, 0, 0, 0}, 0, CpuTree::kPackage) == 0);
  // Busy: an idle whole core in its package (CPU 1), before its own core's sibling (4).
  CHECK(pick_affine(tree, {1, 0, 0, 0, 0, 0, 0, 0}, 0, CpuTree::kPackage) == 1);
  // No idle whole core in the package: the sibling, not the other package's idle cores.
  CHECK(pick_affine(tree, {1, 1, 0, 0, 0, 0, 0, 0}, 0, CpuTree::kPackage) == 4);
  // Nothing idle in the package: the least loaded path (package 1).
  CHECK(pick_affine(tree, {1, 1, 0, 1, 1, 1, 0, 0}, 0, CpuTree::kPackage) == 2);
}

TEST_CASE("placement: an idle CPU steals from the nearest busy one (topology), the busiest (simple)", "[placement]") {
  const CpuTree tree = machine();
  const Loads queued{0, 0, 3, 0, 1, 0, 0, 0};
  const Loads loads{0, 1, 4, 1, 2, 0, 0, 0};
  CHECK(steal_from(tree, loads, queued, 0, ThreadPlacement::topology) == 4);  // its core's sibling
  CHECK(steal_from(tree, loads, queued, 0, ThreadPlacement::simple) == 2);    // the most queued
  CHECK(steal_from(tree, loads, queued, 3, ThreadPlacement::topology) == 2);  // its package
  CHECK_FALSE(steal_from(tree, {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}, 0, ThreadPlacement::topology));
}

TEST_CASE("placement: ULE's steal threshold leaves a CPU with one thread queued alone", "[placement]") {
  // min(fls(ncpus) - 1, 3): 1 for 2 and 3 CPUs, 2 for 4 to 7, 3 from 8 on.
  CHECK(steal_threshold(2) == 1);
  CHECK(steal_threshold(4) == 2);
  CHECK(steal_threshold(7) == 2);
  CHECK(steal_threshold(8) == 3);
  CHECK(steal_threshold(64) == 3);
  const CpuTree tree = machine();  // 8 CPUs: threshold 3 outside a core
  // CPU 2 runs one thread and has one queued (load 2): CPU 0 on the other package leaves it.
  CHECK_FALSE(steal_from(tree, {0, 1, 2, 1, 1, 1, 0, 1}, {0, 0, 1, 0, 0, 0, 0, 0}, 0, ThreadPlacement::topology));
  // ... but its own SMT sibling (CPU 6) takes it: a hardware thread steals any queued one.
  CHECK(steal_from(tree, {0, 1, 2, 1, 1, 1, 0, 1}, {0, 0, 1, 0, 0, 0, 0, 0}, 6, ThreadPlacement::topology) == 2);
  // Load 3 is enough across packages.
  CHECK(steal_from(tree, {0, 1, 3, 1, 1, 1, 1, 1}, {0, 0, 2, 0, 0, 0, 0, 0}, 0, ThreadPlacement::topology) == 2);
  // simple has no threshold.
  CHECK(steal_from(tree, {0, 1, 2, 1, 1, 1, 0, 1}, {0, 0, 1, 0, 0, 0, 0, 0}, 0, ThreadPlacement::simple) == 2);
}

TEST_CASE("placement: affinity expires level by level with the ticks since the thread ran", "[placement]") {
  // SCHED_AFFINITY: a level sharing cache k (2 a core's L2, 3 a package's L3) while fewer than
  // k ticks have passed; the widest such level is searched.
  CHECK(affinity_level(0) == CpuTree::kPackage);
  CHECK(affinity_level(2) == CpuTree::kPackage);
  CHECK(affinity_level(3) == kNoAffinity);
  CHECK(affinity_level(1000) == kNoAffinity);
  const CpuTree tree = machine();
  // Package 0 busy but CPU 1 idle; package 1 entirely idle.
  const Loads loads{1, 0, 0, 0, 1, 1, 0, 0};
  CHECK(pick_affine(tree, loads, 0, affinity_level(1)) == 1);  // still affine: its package's idle CPU
  CHECK(pick_affine(tree, loads, 0, affinity_level(5)) == 2);  // expired: the least loaded path (package 1)
}

TEST_CASE("placement: the periodic balancer evens out the machine, then each package", "[placement]") {
  const CpuTree tree = machine();
  // Nothing queued: nothing to move, however uneven.
  CHECK(balance_moves(tree, {1, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}).empty());
  // CPU 2 (package 1) runs one and has one queued, package 0 is idle: at the machine level the
  // most loaded path's CPU (2) gives one to the least loaded path's (package 0, CPU 0).
  CHECK(balance_moves(tree, {0, 0, 2, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0, 0, 0}) == std::vector<BalanceMove>{{2, 0}});
  // A difference of one moves nothing (it would only move the extra thread).
  CHECK(balance_moves(tree, {1, 1, 2, 1, 1, 1, 1, 1}, {0, 0, 1, 0, 0, 0, 0, 0}).empty());
  // Four on CPU 0 (three queued), the rest idle: half the difference, rounded up, goes to the
  // other package (CPU 2); then package 0 gives one of its two queued to CPU 1, and package 1
  // one of its queued to CPU 3. Each level in turn, top down, as sched_balance_group does.
  const auto moves = balance_moves(tree, {4, 0, 0, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 0, 0, 0});
  CHECK(moves == std::vector<BalanceMove>{{0, 2}, {0, 2}, {0, 1}, {2, 3}});
}

TEST_CASE("placement: boards are a level between packages and the machine", "[placement]") {
  // Two boards of two packages of two cores (no SMT), as barcelona-8s's halves.
  const std::vector<NodeId> node_of_cpu{0, 0, 1, 1, 2, 2, 3, 3};
  const std::vector<int> board_of_cpu{0, 0, 0, 0, 1, 1, 1, 1};
  const CpuTree tree({}, node_of_cpu, board_of_cpu);
  CHECK(tree.group(CpuTree::kBoard, 3) == std::vector<CpuId>{0, 1, 2, 3});
  CHECK(tree.groups(CpuTree::kBoard).size() == 2);
  // The least loaded path goes through the boards first: a second thread to the other board,
  // a third to the first board's other package.
  CHECK(least_loaded_path(tree, {1, 0, 0, 0, 0, 0, 0, 0}) == 4);
  CHECK(least_loaded_path(tree, {1, 0, 0, 0, 1, 0, 0, 0}) == 2);
  // An idle CPU steals within its package, then its board, then across boards: CPU 2 (its
  // board) before CPU 4 (the other board), though CPU 4 is busier.
  CHECK(steal_from(tree, {1, 0, 3, 1, 4, 1, 1, 1}, {0, 0, 2, 0, 3, 0, 0, 0}, 1, ThreadPlacement::topology) == 2);
  CHECK(steal_from(tree, {1, 0, 1, 1, 4, 1, 1, 1}, {0, 0, 0, 0, 3, 0, 0, 0}, 1, ThreadPlacement::topology) == 4);
  // A package across two boards is not a tree.
  CHECK_THROWS_AS(CpuTree({}, {0, 0, 1, 1}, {0, 1, 1, 1}), std::invalid_argument);
}

TEST_CASE("placement: sharing wakes a thread in its partner's package", "[placement]") {
  const CpuTree tree = machine();
  // Partner on CPU 2 (package 1); the thread last ran on CPU 0 (package 0), now idle: it
  // goes to package 1, to a wholly idle core there (core 3: CPUs 3 and 7), not to CPU 6,
  // CPU 2's SMT sibling.
  CHECK(pick_near(tree, {0, 0, 1, 0, 0, 0, 0, 0}, 0, 2) == 3);
  // Its last CPU, when idle and in the partner's package, first.
  CHECK(pick_near(tree, {0, 0, 1, 0, 0, 0, 0, 0}, 7, 2) == 7);
  // No whole core idle there: the sibling (significant overlap is the seed's exception).
  CHECK(pick_near(tree, {0, 0, 1, 1, 0, 0, 0, 0}, 0, 2) == 6);
  // The partner's package full: no opinion (ULE's own choice follows).
  CHECK_FALSE(pick_near(tree, {0, 0, 1, 1, 0, 0, 1, 1}, 0, 2));
}

TEST_CASE("placement: cache overlap counts hand-overs of lines between threads", "[placement]") {
  CacheOverlap o;
  // Thread 1 writes a line; thread 0 reads it three times: one hand-over, not three.
  o.record(1, 0x1000, OpKind::store);
  for (int i = 0; i < 3; ++i) o.record(0, 0x1008, OpKind::load);  // the same 64-byte line
  CHECK(o.between(0, 1) == 1);
  CHECK(o.between(1, 0) == 1);
  CHECK_FALSE(o.partner(0));  // below CacheOverlap::kSignificant
  // Lines only read by several threads hand nothing over.
  o.record(2, 0x2000, OpKind::load);
  o.record(3, 0x2000, OpKind::load);
  CHECK(o.between(2, 3) == 0);
  // A token passed back and forth between 0 and 2: each write then read by the other.
  for (int i = 0; i < 4; ++i) {
    o.record(0, 0x3000, OpKind::rmw);
    o.record(2, 0x3000, OpKind::load);
    o.record(2, 0x3000, OpKind::store);
  }
  CHECK(o.between(0, 2) == 7);  // 2 read 0's write 4 times, 0 met 2's write 3 times
  CHECK(o.partner(0) == 2);     // 7 with 2 against 1 with 1
  CHECK(o.partner(2) == 0);
  CHECK_FALSE(o.partner(3));
}
