#include "sim/machine/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

namespace {

enum class VertexKind : std::uint8_t { board, package, hub, core, cpu };
struct VertexProps {
  VertexKind kind = VertexKind::cpu;
  int id = 0;
};
enum class EdgeKind : std::uint8_t { contains, link };
struct EdgeProps {
  EdgeKind kind = EdgeKind::contains;
  double weight = 1e12;  // routing weight: a link's latency; containment edges never carry messages
  int a = -1;            // link ends (routing vertices: packages and hubs)
  int b = -1;
  int channel_ab = -1;  // the channel from a to b
  int channel_ba = -1;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

// Containment edges weigh this much, so no shortest route between packages uses them.
constexpr double kNotARoute = 1e12;

}  // namespace

Topology::Topology(const MachineConfig& c)
    : packages_(c.packages),
      packages_per_node_(c.packages_per_node),
      hubs_(c.node_hubs),
      cores_per_package_(c.cores_per_package),
      cores_(c.cores()) {
  if (c.packages < 1 || c.cores_per_package < 1 || c.threads_per_core < 1 || c.boards < 1)
    throw std::invalid_argument("a machine needs at least one board, package, core and thread");
  if (c.packages_per_node < 1 || c.packages % c.packages_per_node != 0)
    throw std::invalid_argument(
        fmt::format("packages_per_node {} does not divide {} packages", c.packages_per_node, c.packages));
  vertices_ = c.packages + c.hubs();
  board_of_package_ =
      c.board_of_package.empty() ? std::vector<int>(static_cast<std::size_t>(c.packages), 0) : c.board_of_package;
  if (board_of_package_.size() != static_cast<std::size_t>(c.packages))
    throw std::invalid_argument("board_of_package needs one entry per package");
  // CPUs are numbered as Linux numbers them: every core's first thread, then every core's second.
  for (int t = 0; t < c.threads_per_core; ++t)
    for (int core = 0; core < cores_; ++core) core_of_cpu_.push_back(core);
  compute_routes(c);
}

std::vector<NodeId> Topology::node_of_cpu() const {
  std::vector<NodeId> out;
  for (int cpu = 0; cpu < cpus(); ++cpu) out.push_back(node_of(cpu));
  return out;
}

void Topology::compute_routes(const MachineConfig& c) {
  Graph g;
  std::vector<Vertex> board_v;
  std::vector<Vertex> package_v;
  for (int b = 0; b < c.boards; ++b) board_v.push_back(boost::add_vertex(VertexProps{VertexKind::board, b}, g));
  for (int p = 0; p < c.packages; ++p) {
    package_v.push_back(boost::add_vertex(VertexProps{VertexKind::package, p}, g));
    const int board = board_of_package_[static_cast<std::size_t>(p)];
    if (board < 0 || board >= c.boards) throw std::invalid_argument(fmt::format("package {} is on no board", p));
    boost::add_edge(board_v[static_cast<std::size_t>(board)], package_v.back(), EdgeProps{}, g);
  }
  // Hubs carry messages and hold no cores; they join the graph only through their links.
  for (int h = 0; h < c.hubs(); ++h)
    package_v.push_back(boost::add_vertex(VertexProps{VertexKind::hub, c.packages + h}, g));
  for (int core = 0; core < cores_; ++core) {
    const Vertex v = boost::add_vertex(VertexProps{VertexKind::core, core}, g);
    boost::add_edge(package_v[static_cast<std::size_t>(package_of_core(core))], v, EdgeProps{}, g);
  }
  for (const Link& l : c.links) {
    if (l.a < 0 || l.a >= vertices_ || l.b < 0 || l.b >= vertices_ || l.a == l.b)
      throw std::invalid_argument(fmt::format("link {}-{} does not join two packages or hubs", l.a, l.b));
    EdgeProps e{EdgeKind::link,
                l.latency_ns,
                l.a,
                l.b,
                static_cast<int>(channels_.size()),
                static_cast<int>(channels_.size() + 1)};
    channels_.push_back(Channel{l.a, l.b, l.latency_ns, l.bandwidth_bytes_per_ns});
    channels_.push_back(Channel{l.b, l.a, l.latency_ns, l.bandwidth_bytes_per_ns});
    boost::add_edge(package_v[static_cast<std::size_t>(l.a)], package_v[static_cast<std::size_t>(l.b)], e, g);
  }

  const auto n = static_cast<std::size_t>(vertices_);
  hops_.assign(n * n, 0);
  latency_.assign(n * n, 0);
  routes_.assign(n * n, {});
  auto weight = boost::get(&EdgeProps::weight, g);
  std::vector<Vertex> pred(boost::num_vertices(g));
  std::vector<double> dist(boost::num_vertices(g));
  for (int from = 0; from < vertices_; ++from) {
    const Vertex src = package_v[static_cast<std::size_t>(from)];
    boost::dijkstra_shortest_paths(
        g, src,
        boost::weight_map(weight)
            .predecessor_map(boost::make_iterator_property_map(pred.begin(), boost::get(boost::vertex_index, g)))
            .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g))));
    for (int to = 0; to < vertices_; ++to) {
      if (to == from) continue;
      const Vertex dst = package_v[static_cast<std::size_t>(to)];
      if (dist[dst] >= kNotARoute)
        throw std::invalid_argument(fmt::format("no link route from vertex {} to {}", from, to));
      std::vector<int> path;  // channels, built backwards
      for (Vertex v = dst; v != src; v = pred[v]) {
        const auto [e, found] = boost::edge(pred[v], v, g);
        if (!found) throw std::logic_error("broken shortest-path tree");
        const EdgeProps& props = g[e];
        path.push_back(g[pred[v]].id == props.a ? props.channel_ab : props.channel_ba);
      }
      routes_[index(from, to)].assign(path.rbegin(), path.rend());
      hops_[index(from, to)] = static_cast<int>(path.size());
      latency_[index(from, to)] = dist[dst];
    }
  }
}

}  // namespace lockstep::sim::machine
