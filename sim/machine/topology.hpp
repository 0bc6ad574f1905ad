// The machine's shape as a graph (Boost.Graph): boards contain packages, packages contain
// cores, cores contain CPUs (SMT threads); interconnect links join packages. Routes,
// hop counts and link latencies between packages come from shortest paths over the links.
// A NUMA node is one package (Nehalem-EP, Opteron: each has its memory controller,
// docs/sources.md section 4) or several (AMD Zen: a socket's core complexes); its home
// agent sits on its first package or, on a machine with hubs, on a vertex of its own.
// Routes run between vertices: the packages, then the hubs.
#pragma once

#include <vector>

#include "core/platform.hpp"
#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

// One direction of a link: messages crossing it queue behind each other.
struct Channel {
  int from = 0;
  int to = 0;
  double latency_ns = 0;
  double bandwidth_bytes_per_ns = 1;
};

class Topology {
 public:
  explicit Topology(const MachineConfig& config);

  int cpus() const { return static_cast<int>(core_of_cpu_.size()); }
  int cores() const { return cores_; }
  int packages() const { return packages_; }
  int nodes() const { return packages_ / packages_per_node_; }
  // Routing vertices: the packages, then one hub per node where the machine has hubs.
  int vertices() const { return vertices_; }
  int core_of(CpuId cpu) const { return core_of_cpu_[static_cast<std::size_t>(cpu)]; }
  // CPUs are numbered as Linux numbers them, every core's first thread first, so core c's
  // first thread is CPU c.
  CpuId first_cpu_of_core(int core) const { return core; }
  int package_of_core(int core) const { return core / cores_per_package_; }
  int package_of(CpuId cpu) const { return package_of_core(core_of(cpu)); }
  NodeId node_of_package(int package) const { return package / packages_per_node_; }
  NodeId node_of(CpuId cpu) const { return node_of_package(package_of(cpu)); }
  // Where node `node`'s home agent and memory controllers are: its hub, or its first package.
  int home_vertex(NodeId node) const { return hubs_ ? packages_ + node : node * packages_per_node_; }
  int board_of(int package) const { return board_of_package_[static_cast<std::size_t>(package)]; }
  std::vector<NodeId> node_of_cpu() const;

  int hops(int from, int to) const { return hops_[index(from, to)]; }
  double path_latency_ns(int from, int to) const { return latency_[index(from, to)]; }
  // The channels a message from vertex `from` to `to` crosses, in order.
  const std::vector<int>& route(int from, int to) const { return routes_[index(from, to)]; }
  const std::vector<Channel>& channels() const { return channels_; }

 private:
  std::size_t index(int from, int to) const {
    return static_cast<std::size_t>(from) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(to);
  }
  void compute_routes(const MachineConfig& config);

  int packages_ = 0;
  int packages_per_node_ = 1;
  bool hubs_ = false;
  int vertices_ = 0;
  int cores_per_package_ = 0;
  int cores_ = 0;
  std::vector<int> core_of_cpu_;
  std::vector<int> board_of_package_;
  std::vector<Channel> channels_;
  std::vector<int> hops_;
  std::vector<double> latency_;
  std::vector<std::vector<int>> routes_;
};

}  // namespace lockstep::sim::machine
