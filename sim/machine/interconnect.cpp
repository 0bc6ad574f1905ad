#include "sim/machine/interconnect.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace lockstep::sim::machine {

Interconnect::Interconnect(const Topology& topology, std::uint32_t request_bytes, std::uint32_t data_bytes)
    : vertices_(topology.vertices()), channels_(topology.channels().size()) {
  if (vertices_ > 32) throw std::invalid_argument("interconnect: a broadcast's targets are a 32-bit mask of vertices");
  const double bytes[2] = {static_cast<double>(request_bytes), static_cast<double>(data_bytes)};
  for (int from = 0; from < vertices_; ++from) {
    for (int to = 0; to < vertices_; ++to) {
      Route route;
      route.first_hop = static_cast<std::uint32_t>(hops_.size());
      for (int c : topology.route(from, to)) {
        const auto& ch = topology.channels()[static_cast<std::size_t>(c)];
        Hop hop{c, ch.latency_ns, {bytes[0] / ch.bandwidth_bytes_per_ns, bytes[1] / ch.bandwidth_bytes_per_ns}};
        for (int k = 0; k < 2; ++k) route.tail_ns[k] = std::max(route.tail_ns[k], hop.serialize_ns[k]);
        hops_.push_back(hop);
      }
      route.hops = static_cast<std::uint32_t>(hops_.size()) - route.first_hop;
      routes_.push_back(route);
    }
  }
  for (int from = 0; from < vertices_; ++from) trees_.push_back(build_tree(topology, from));
  head_.assign(static_cast<std::size_t>(vertices_), 0);
}

// The routes from one source are one shortest-path tree (topology.cpp), so a package's
// route is its parent's plus one hop: the broadcast tree is every route's last hop.
Interconnect::Tree Interconnect::build_tree(const Topology& topology, int from) const {
  Tree tree;
  for (int to = 0; to < vertices_; ++to) {
    if (to == from) continue;
    const Route& route = routes_[index(from, to)];
    const Hop& last = hops_[route.first_hop + route.hops - 1];
    const int parent = topology.channels()[static_cast<std::size_t>(last.channel)].from;
    if (parent != from) {
      const Route& up = routes_[index(from, parent)];
      if (up.hops + 1 != route.hops || !std::equal(hops_.begin() + up.first_hop, hops_.begin() + up.first_hop + up.hops,
                                                   hops_.begin() + route.first_hop,
                                                   [](const Hop& a, const Hop& b) { return a.channel == b.channel; }))
        throw std::logic_error("interconnect: the routes from a package do not form a tree");
    }
    tree.nodes.push_back(TreeNode{to, parent, last, {route.tail_ns[0], route.tail_ns[1]}});
  }
  // Parents before children: fewer hops first, then package order.
  std::stable_sort(tree.nodes.begin(), tree.nodes.end(), [&](const TreeNode& a, const TreeNode& b) {
    return routes_[index(from, a.package)].hops < routes_[index(from, b.package)].hops;
  });
  tree.reach.assign(static_cast<std::size_t>(vertices_), 0);
  for (const TreeNode& node : tree.nodes)
    tree.reach[static_cast<std::size_t>(node.package)] =
        (node.parent == from ? 0 : tree.reach[static_cast<std::size_t>(node.parent)]) | 1u << node.package;
  return tree;
}

void Interconnect::reset() {
  for (Channel& c : channels_) {
    c.bookings.clear();
    c.trim_at = kTrimAfter;
  }
  now_ns_ = 0;
}

// Bookings that ended before the access being costed began are history. They are a prefix
// (bookings are disjoint and in time order) that no search reaches: every message is ready
// at or after the access's start, and the first-fit search walks back from the end only
// while bookings end after that. So the prefix is dropped only when the vector has doubled
// since it was last trimmed, which keeps the per-booking path free of a loop whose length
// varies (it mispredicted on almost every booking when it ran each time).
void Interconnect::forget_past(Channel& channel) const {
  std::vector<Booking>& b = channel.bookings;
  const auto past = std::find_if(b.begin(), b.end(), [this](const Booking& x) { return x.to_ns > now_ns_; });
  b.erase(b.begin(), past);
  channel.trim_at = std::max(kTrimAfter, 2 * b.size());
}

// Books the first gap of `length` at or after `ready` and returns where it starts. A link
// holds about nine live bookings when one arrives and a DRAM miss books some twenty-four, so
// this works on indices and moves elements by hand rather than through vector::insert's
// general path.
[[gnu::always_inline]] inline double Interconnect::book(Channel& channel, double ready, double length) {
  std::vector<Booking>& b = channel.bookings;
  const std::size_t n = b.size();
  // First fit: skip what ends before `ready`, then every interval the message would
  // overlap. A message lands after everything booked, or a few intervals before the end
  // (a probe answer ahead of a data reply booked earlier: half of all bookings land within
  // two intervals of the end), so the search walks back from the end.
  std::size_t lo = n;
  while (lo > 0 && b[lo - 1].to_ns > ready) --lo;
  double at = ready;
  std::size_t i = lo;
  for (; i < n && b[i].from_ns < at + length; ++i) at = b[i].to_ns;
  // Only the free gaps matter, so back-to-back bookings merge into one interval: a busy
  // link's queue stays a handful of intervals instead of one per message.
  const double end = at + length;
  // (A previous booking already past can join too: the time it covers is the same.)
  const bool joins_previous = i != 0 && b[i - 1].to_ns == at;
  const bool joins_next = i != n && b[i].from_ns == end;
  if (joins_previous && joins_next) {
    b[i - 1].to_ns = b[i].to_ns;
    for (std::size_t j = i + 1; j < n; ++j) b[j - 1] = b[j];
    b.pop_back();
  } else if (joins_previous) {
    b[i - 1].to_ns = end;
  } else if (joins_next) {
    b[i].from_ns = at;
  } else {
    // Usually zero to three bookings move; a loop of swaps, which the compiler does not
    // turn into a call to memmove as it does a plain shift.
    Booking carry{at, end};
    for (std::size_t j = i; j < n; ++j) std::swap(carry, b[j]);
    b.push_back(carry);
    if (b.size() >= channel.trim_at) [[unlikely]]
      forget_past(channel);
  }
  return at;
}

// A message's trip over its route, cut-through as HyperTransport and QPI forward packets:
// each hop adds its latency, the message occupies each link direction for its
// serialization time (queueing behind bookings already there), and the tail arrives one
// serialization after the head.
double Interconnect::message(int from, int to, Message kind, double start) {
  if (from == to) return 0;
  const Route& route = routes_[index(from, to)];
  const auto k = static_cast<std::size_t>(kind);
  double head = start;
  for (std::uint32_t h = 0; h < route.hops; ++h) {
    const Hop& hop = hops_[route.first_hop + h];
    head = book(channels_[static_cast<std::size_t>(hop.channel)], head, hop.serialize_ns[k]) + hop.latency_ns;
  }
  return head + route.tail_ns[k] - start;
}

// Coherent HyperTransport forwards a broadcast (a probe) along routes the routing tables
// name per source: each node passes it on over the links that lead further from the source,
// so every link of the tree carries one copy [derived: the routing tables' broadcast
// route; docs/sources.md section 4 has only "broadcast probes"]. A copy is cut-through at each node, as
// a message is, so on idle links each target has it when a message of its own would.
void Interconnect::broadcast(int from, std::uint32_t targets, Message kind, double start, double* arrival) {
  const Tree& tree = trees_[static_cast<std::size_t>(from)];
  const auto k = static_cast<std::size_t>(kind);
  std::uint32_t needed = 0;  // the targets and every package their routes pass
  for (std::uint32_t rest = targets & ~(1u << from); rest != 0; rest &= rest - 1)
    needed |= tree.reach[static_cast<std::size_t>(std::countr_zero(rest))];
  head_[static_cast<std::size_t>(from)] = start;
  if ((targets >> from & 1u) != 0) arrival[from] = start;
  for (const TreeNode& node : tree.nodes) {
    if ((needed >> node.package & 1u) == 0) continue;
    const double head = book(channels_[static_cast<std::size_t>(node.hop.channel)],
                             head_[static_cast<std::size_t>(node.parent)], node.hop.serialize_ns[k]) +
                        node.hop.latency_ns;
    head_[static_cast<std::size_t>(node.package)] = head;
    if ((targets >> node.package & 1u) != 0) arrival[node.package] = head + node.tail_ns[k];
  }
}

}  // namespace lockstep::sim::machine
