// The machine's shape (sim/machine/topology.hpp) for every preset, and the host's shape read
// from sysfs (sim/machine/host_topology.hpp), on fake trees and on this machine's /sys.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "sim/machine/host_topology.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"

using namespace lockstep;
using namespace lockstep::sim::machine;

namespace {

std::string sysfs(const std::string& name) { return std::string(LOCKSTEP_SOURCE_DIR) + "/tests/data/sysfs/" + name; }

bool crosses_boards(const Topology& t, const Channel& c) { return t.board_of(c.from) != t.board_of(c.to); }

// How many channels of the route from `a` to `b` join two boards.
int board_crossings(const Topology& t, int a, int b) {
  int n = 0;
  for (int c : t.route(a, b)) n += crosses_boards(t, t.channels()[static_cast<std::size_t>(c)]) ? 1 : 0;
  return n;
}

int diameter(const Topology& t) {
  int most = 0;
  for (int a = 0; a < t.packages(); ++a)
    for (int b = 0; b < t.packages(); ++b) most = std::max(most, t.hops(a, b));
  return most;
}

}  // namespace

TEST_CASE("every preset builds a topology whose routes are symmetric", "[machine]") {
  for (const std::string& name : preset_names()) {
    INFO(name);
    const MachineConfig c = make_preset(name);
    CHECK(c.name == name);
    const Topology t(c);
    CHECK(t.cpus() == c.packages * c.cores_per_package * c.threads_per_core);
    CHECK(t.packages() == c.packages);
    for (int a = 0; a < t.packages(); ++a) {
      CHECK(t.hops(a, a) == 0);
      for (int b = 0; b < t.packages(); ++b) {
        CHECK(t.hops(a, b) == t.hops(b, a));
        CHECK(t.path_latency_ns(a, b) == Approx(t.path_latency_ns(b, a)));
        CHECK(t.route(a, b).size() == static_cast<std::size_t>(t.hops(a, b)));
      }
    }
  }
}

TEST_CASE("every fixed preset's caches and links suit the memory model", "[machine]") {
  for (const std::string& name : preset_names()) {
    if (name == "host") continue;  // its own test below
    INFO(name);
    const MachineConfig c = make_preset(name);
    CHECK_NOTHROW(MemorySystem(c));
    REQUIRE(c.caches.size() == 3);
    CHECK(c.caches[0].name == "L1");
    CHECK(c.caches[2].scope == CacheScope::package);
    for (const Link& l : c.links) {
      CHECK(l.latency_ns > 0);
      CHECK(l.bandwidth_bytes_per_ns > 0);
    }
    CHECK(c.dram.open_row_saving_ns < c.dram.latency_ns);
    CHECK(c.dram.refresh_busy_ns < c.dram.refresh_interval_ns);
    CHECK(c.packages <= 16);  // sim::kMaxNodes
  }
}

TEST_CASE("CPUs are numbered like Linux: every core's first thread, then every second", "[machine]") {
  const MachineConfig c = make_preset("nehalem-2s");
  const Topology t(c);
  REQUIRE(t.cpus() == 16);
  for (int cpu = 0; cpu < 16; ++cpu) {
    INFO(cpu);
    CHECK(t.core_of(cpu) == cpu % 8);
    CHECK(t.package_of(cpu) == (cpu % 8) / 4);
    CHECK(t.node_of(cpu) == t.package_of(cpu));
  }
  CHECK(t.node_of_cpu() == std::vector<NodeId>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(t.hops(0, 1) == 1);
}

TEST_CASE("barcelona-4s is a square: opposite corners are two hops apart", "[machine]") {
  const Topology t(make_preset("barcelona-4s"));
  CHECK(t.cpus() == 16);
  CHECK(t.hops(0, 1) == 1);
  CHECK(t.hops(1, 3) == 1);
  CHECK(t.hops(3, 2) == 1);
  CHECK(t.hops(2, 0) == 1);
  CHECK(t.hops(0, 3) == 2);
  CHECK(t.hops(1, 2) == 2);
  CHECK(t.node_of(15) == 3);
}

TEST_CASE("barcelona-8s: two boards joined by two slow links, one crossing per route", "[machine]") {
  const MachineConfig c = make_preset("barcelona-8s");
  const Topology t(c);
  CHECK(t.cpus() == 32);  // the seed's 32 cores
  int board_links = 0;
  for (const Channel& ch : t.channels()) {
    if (!crosses_boards(t, ch)) continue;
    ++board_links;
    CHECK(ch.bandwidth_bytes_per_ns < 1);  // the slowness is mostly bandwidth
  }
  CHECK(board_links == 4);  // two links, two directions each
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      INFO(a << " -> " << b);
      CHECK(board_crossings(t, a, b) == (t.board_of(a) == t.board_of(b) ? 0 : 1));
    }
  }
  CHECK(t.hops(0, 3) == 2);  // each board is barcelona-4s's square
  CHECK(t.hops(4, 7) == 2);
  CHECK(t.hops(2, 4) == 1);  // the board links: 2-4 and 3-5
  CHECK(t.hops(3, 5) == 1);
  CHECK(t.hops(0, 7) == 4);
  CHECK(diameter(t) == 4);
}

TEST_CASE("xeon-e7-16s: 512 CPUs, any package within two hops", "[machine]") {
  const Topology t(make_preset("xeon-e7-16s"));
  CHECK(t.cpus() == 512);
  CHECK(t.packages() == 16);
  CHECK(diameter(t) == 2);
  CHECK(t.hops(0, 3) == 1);  // one board, fully connected
  CHECK(t.hops(0, 4) == 1);  // the same position on another board
  CHECK(t.hops(0, 5) == 2);
  CHECK(board_crossings(t, 0, 5) == 1);
  CHECK(t.package_of(511) == 15);
  CHECK(t.package_of(256) == 0);  // the second thread of core 0
}

TEST_CASE("make_preset rejects an unknown name", "[machine]") {
  CHECK_THROWS_AS(make_preset("cray-1"), std::out_of_range);
  CHECK_THROWS_AS(make_preset("flat"), std::out_of_range);  // the loader's, not a machine model
}

TEST_CASE("host topology: two sockets numbered alternately", "[machine]") {
  const HostTopology host = read_host_topology(sysfs("xeon-2s"));
  const MachineConfig& c = host.config;
  CHECK(c.name == "host");
  CHECK(c.boards == 1);
  CHECK(c.packages == 2);
  CHECK(c.cores_per_package == 4);
  CHECK(c.threads_per_core == 2);
  // Model CPUs 0-3 are package 0's first threads: the host's even CPUs 0-6; and so on.
  CHECK(host.host_cpu_of_model_cpu == std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15});
  REQUIRE(c.caches.size() == 3);
  CHECK(c.caches[0].name == "L1");
  CHECK(c.caches[0].size_bytes == 32 * 1024);
  CHECK(c.caches[0].ways == 8);
  CHECK(c.caches[0].scope == CacheScope::core);
  CHECK(c.caches[1].name == "L2");
  CHECK(c.caches[1].size_bytes == 256 * 1024);
  CHECK(c.caches[1].scope == CacheScope::core);
  CHECK(c.caches[2].name == "L3");
  CHECK(c.caches[2].size_bytes == 8 * 1024 * 1024);
  CHECK(c.caches[2].ways == 16);
  CHECK(c.caches[2].scope == CacheScope::package);
  CHECK(host.caches_from_sysfs);
  const MachineConfig nehalem = make_preset("nehalem-2s");
  CHECK(c.caches[2].hit_ns == nehalem.caches[2].hit_ns);  // [guess] until calibrated
  CHECK(c.dram.latency_ns == nehalem.dram.latency_ns);
  REQUIRE(c.links.size() == 1);
  CHECK(c.links[0].latency_ns == Approx(nehalem.links[0].latency_ns));  // SLIT 21: Nehalem's QPI
  const Topology t(c);
  CHECK(t.node_of_cpu() == std::vector<NodeId>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
  CHECK_NOTHROW(MemorySystem(c));
  CHECK(host.notes.size() == 1);  // only the guessed interconnect
}

TEST_CASE("host topology: sub-NUMA clusters become packages, odd caches are reshaped", "[machine]") {
  const HostTopology host = read_host_topology(sysfs("snc-1s"));
  const MachineConfig& c = host.config;
  CHECK(c.packages == 2);  // two nodes in one package
  CHECK(c.cores_per_package == 2);
  CHECK(c.threads_per_core == 1);
  CHECK(host.host_cpu_of_model_cpu == std::vector<int>{0, 1, 2, 3});
  REQUIRE(c.caches.size() == 3);
  CHECK(c.caches[0].size_bytes == 48 * 1024);
  CHECK(c.caches[0].ways == 12);
  CHECK(c.caches[1].scope == CacheScope::core);       // shared by two cores, but the model's L2 is private
  CHECK(c.caches[2].size_bytes == 30 * 1024 * 1024);  // the capacity is kept...
  CHECK(c.caches[2].ways == 30);                      // ...in 16384 sets of 30 ways
  REQUIRE(c.links.size() == 1);
  CHECK(c.links[0].latency_ns == Approx(make_preset("nehalem-2s").links[0].latency_ns * 2 / 11));  // SLIT 12
  CHECK_NOTHROW(MemorySystem(c));
  const auto noted = [&](const std::string& text) {
    for (const std::string& n : host.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(noted("2 NUMA nodes in 1 packages"));
  CHECK(noted("L2 is modelled as private to each core"));
  CHECK(noted("L3: 31457280 bytes in 20 ways"));
}

TEST_CASE("host topology: this machine's /sys", "[machine]") {
  const HostTopology host = read_host_topology();
  const MachineConfig& c = host.config;
  INFO("packages " << c.packages << ", cores " << c.cores_per_package << ", threads " << c.threads_per_core);
  CHECK(c.cpus() >= 1);
  CHECK(host.host_cpu_of_model_cpu.size() == static_cast<std::size_t>(c.cpus()));
  const std::set<int> distinct(host.host_cpu_of_model_cpu.begin(), host.host_cpu_of_model_cpu.end());
  CHECK(distinct.size() == host.host_cpu_of_model_cpu.size());
  const Topology t(c);
  CHECK(t.cpus() == c.cpus());
  if (c.packages <= 4) CHECK_NOTHROW(MemorySystem(c));  // larger hosts: tag arrays of many L3s
  CHECK(make_preset("host").cpus() == c.cpus());
}

TEST_CASE("host topology: a missing sysfs tree is an error naming it", "[machine]") {
  CHECK_THROWS_WITH(host_machine(sysfs("no-such-tree")), Catch::Contains("no-such-tree/devices/system/cpu"));
}

TEST_CASE("hubs: a node spans several packages and its home agent sits on a vertex without cores", "[machine]") {
  const MachineConfig c = make_preset("epyc-7r13-2s");
  const Topology t(c);
  CHECK(t.packages() == 12);
  CHECK(t.nodes() == 2);
  CHECK(t.vertices() == 14);
  // CPU n and n + 96 are siblings; a socket's 48 cores are one node.
  const std::vector<NodeId> nodes = t.node_of_cpu();
  REQUIRE(nodes.size() == 192);
  for (int cpu = 0; cpu < 192; ++cpu) CHECK(nodes[static_cast<std::size_t>(cpu)] == (cpu % 96) / 48);
  CHECK(t.home_vertex(0) == 12);
  CHECK(t.home_vertex(1) == 13);
  // Two core complexes of a socket meet at its IO die; of two sockets, across both IO dies.
  CHECK(t.hops(0, 5) == 2);
  CHECK(t.hops(0, 6) == 3);
  CHECK(t.hops(0, 12) == 1);
  CHECK(t.hops(0, 13) == 2);
  // Without hubs a node's home is its first package.
  MachineConfig flat = c;
  flat.node_hubs = false;
  flat.links.clear();
  for (int a = 0; a < 12; ++a)
    for (int b = a + 1; b < 12; ++b) flat.links.push_back(Link{a, b, 20, 32});
  const Topology f(flat);
  CHECK(f.vertices() == 12);
  CHECK(f.home_vertex(1) == 6);
  CHECK_NOTHROW(MemorySystem(flat));
  MachineConfig odd = c;
  odd.packages_per_node = 5;  // does not divide 12
  CHECK_THROWS_WITH(Topology(odd), Catch::Contains("packages_per_node 5"));
  MachineConfig stray = c;
  stray.links.push_back(Link{0, 14, 10, 10});  // no vertex 14
  CHECK_THROWS_WITH(Topology(stray), Catch::Contains("does not join two packages or hubs"));
}
