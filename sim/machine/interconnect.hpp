// The links between packages as the machine model uses them: a message's trip over its
// route, with each link direction's occupancy.
//
// A DRAM miss on the 8-socket broadcast machine sends 16 messages over some 30 link
// directions (sim-speed averages 1.9 hops a message), so this is the machine model's
// hottest code (27% of sim-speed's host time): routes are flattened once per machine into
// arrays of hops with their serialization times, and each direction's bookings are a
// vector whose expired prefix is dropped only now and then.
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
  // Sends a message from package `from` to `to`, ready at `start`; returns its duration.
  double message(int from, int to, Message kind, double start);

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
    double tail_ns[2] = {0, 0};   // per Message kind: the longest serialization on the route
  };

  double book(Channel& channel, double ready, double length);
  void forget_past(Channel& channel) const;

  int packages_ = 0;
  std::vector<Route> routes_;  // per (from, to)
  std::vector<Hop> hops_;
  std::vector<Channel> channels_;
  double now_ns_ = 0;
};

}  // namespace lockstep::sim::machine
