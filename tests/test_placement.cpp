// Thread placement (sim/exec/placement.hpp, docs/os.md "Topology-aware placement"): each
// policy's decision on a hand-made machine of 2 packages x 2 cores x 2 hardware threads,
// numbered as Linux numbers them (CPUs 0-3 the cores' first threads, 4-7 their second;
// cores 0-1 on package 0, 2-3 on package 1).
#include <catch2/catch.hpp>

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
  CHECK(steal_from(tree, queued, 0, ThreadPlacement::topology) == 4);  // its core's sibling
  CHECK(steal_from(tree, queued, 0, ThreadPlacement::simple) == 2);    // the most queued
  CHECK(steal_from(tree, queued, 3, ThreadPlacement::topology) == 2);  // its package
  CHECK_FALSE(steal_from(tree, {0, 0, 0, 0, 0, 0, 0, 0}, 0, ThreadPlacement::topology));
}
