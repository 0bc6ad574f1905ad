// The links between packages (and hubs) as the machine model uses them: a message's trip over its
// route, or a broadcast's over the tree of its source's routes, with each link
// direction's occupancy.
//
// A DRAM miss on the 8-socket broadcast machine sends a request, the data, a broadcast of
// probes (one booking per link of the tree: 7 of them) and 7 answers, about 24 link
// directions in all (sim-speed averages 1.9 hops a message and books 368 k directions in
// one execution), so this is the machine model's hottest code (24% of sim-speed's host
// time): routes are flattened once per machine into arrays of hops with their
// serialization times, and each direction's bookings are a vector whose expired prefix is
// dropped only now and then.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/machine/topology.hpp"

namespace lockstep::sim::machine {

// The two sizes of message the protocols send.
enum class Message : std::uint8_t { request, data };

class Interconnect {
 public:
  Interconnect(const Topology& topology, std::uint32_t request_bytes, std::uint32_t data_bytes);

  void reset();
  // Accesses arrive in nondecreasing start time; bookings that ended before `now_ns` are
  // history for every later access.
  void set_now(double now_ns) { now_ns_ = now_ns; }
  double now() const { return now_ns_; }
  // Sends a message from vertex (package or hub) `from` to `to`, ready at `start`; returns its duration.
  double message(int from, int to, Message kind, double start);
  // Sends one broadcast from `from` to the packages whose bits are set in `targets`, as
  // coherent HyperTransport forwards probes: along the tree of `from`'s routes, each link
  // of the tree carrying it once. Sets `arrival[p]` to when package p has the whole
  // message, for every target p (`from` itself, if a target, has it at `start`).
  void broadcast(int from, std::uint32_t targets, Message kind, double start, double* arrival);

 private:
  struct Booking {
    double from_ns = 0;
    double to_ns = 0;
  };
  static constexpr std::size_t kTrimAfter = 32;  // bookings a link keeps before dropping past ones

  // One link direction's bookings: disjoint, in time order; a prefix of them may be past.
  struct Channel {
    std::vector<Booking> bookings;
    std::size_t trim_at = kTrimAfter;  // drop the past prefix when this many are kept
  };
  struct Hop {
    int channel = 0;
    double latency_ns = 0;
    double serialize_ns[2] = {0, 0};  // per Message kind
  };
  struct Route {
    std::uint32_t first_hop = 0;  // into hops_
    std::uint32_t hops = 0;
    double tail_ns[2] = {0, 0};  // per Message kind: the longest serialization on the route
  };
  // One package's place in the broadcast tree of a source: the last hop of the route to it.
  struct TreeNode {
    int package = 0;
    int parent = 0;  // the package the route passes just before (the source for one hop)
    Hop hop;
    double tail_ns[2] = {0, 0};  // the whole route's, as Route's
  };
  struct Tree {
    std::vector<TreeNode> nodes;       // every other package, parents before children
    std::vector<std::uint32_t> reach;  // per package: its bit and its ancestors' (not the source's)
  };

  std::size_t index(int from, int to) const {
    return static_cast<std::size_t>(from) * static_cast<std::size_t>(vertices_) + static_cast<std::size_t>(to);
  }
  Tree build_tree(const Topology& topology, int from) const;
  double book(Channel& channel, double ready, double length);
  void forget_past(Channel& channel) const;

  int vertices_ = 0;           // packages and hubs
  std::vector<Route> routes_;  // per (from, to)
  std::vector<Hop> hops_;
  std::vector<Channel> channels_;
  std::vector<Tree> trees_;   // per source package
  std::vector<double> head_;  // scratch for broadcast: per package, when the head arrives
  double now_ns_ = 0;
};

}  // namespace lockstep::sim::machine
