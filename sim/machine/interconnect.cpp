#include "sim/machine/interconnect.hpp"

#include <algorithm>
#include <iterator>

namespace lockstep::sim::machine {

Interconnect::Interconnect(const Topology& topology, std::uint32_t request_bytes, std::uint32_t data_bytes)
    : packages_(topology.packages()), channels_(topology.channels().size()) {
  const double bytes[2] = {static_cast<double>(request_bytes), static_cast<double>(data_bytes)};
  for (int from = 0; from < packages_; ++from) {
    for (int to = 0; to < packages_; ++to) {
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
}

void Interconnect::reset() {
  for (Channel& c : channels_) {
    c.bookings.clear();
    c.live = 0;
  }
  now_ns_ = 0;
}

// A message's trip over its route, cut-through as HyperTransport and QPI forward packets:
// each hop adds its latency, the message occupies each link direction for its
// serialization time (queueing behind bookings already there), and the tail arrives one
// serialization after the head.
double Interconnect::message(int from, int to, Message kind, double start) {
  if (from == to) return 0;
  const Route& route = routes_[static_cast<std::size_t>(from) * static_cast<std::size_t>(packages_) +
                               static_cast<std::size_t>(to)];
  const auto k = static_cast<std::size_t>(kind);
  double head = start;
  for (std::uint32_t h = 0; h < route.hops; ++h) {
    const Hop& hop = hops_[route.first_hop + h];
    head = book(channels_[static_cast<std::size_t>(hop.channel)], head, hop.serialize_ns[k]) + hop.latency_ns;
  }
  return head + route.tail_ns[k] - start;
}

// Bookings that ended before the access being costed began are history. They are a prefix
// (bookings are disjoint and in time order), skipped by moving `live`; the vector is
// compacted only when the dead prefix outgrows the live part, so a busy link does not
// shift its whole queue on every message.
void Interconnect::forget_past(Channel& channel) {
  std::vector<Booking>& b = channel.bookings;
  while (channel.live < b.size() && b[channel.live].to_ns <= now_ns_) ++channel.live;
  if (channel.live > 16 && channel.live * 2 > b.size()) {
    b.erase(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(channel.live));
    channel.live = 0;
  }
}

// Books the first gap of `length` at or after `ready` and returns where it starts.
double Interconnect::book(Channel& channel, double ready, double length) {
  forget_past(channel);
  std::vector<Booking>& bookings = channel.bookings;
  const auto live = bookings.begin() + static_cast<std::ptrdiff_t>(channel.live);
  // First fit: skip what ends before `ready`, then every interval the message would overlap.
  double at = ready;
  auto it = std::partition_point(live, bookings.end(), [at](const Booking& b) { return b.to_ns <= at; });
  for (; it != bookings.end(); ++it) {
    if (it->from_ns >= at + length) break;
    at = it->to_ns;
  }
  // Only the free gaps matter, so back-to-back bookings merge into one interval: a busy
  // link's queue stays a handful of intervals instead of one per message.
  const double end = at + length;
  const bool joins_previous = it != live && std::prev(it)->to_ns == at;
  const bool joins_next = it != bookings.end() && it->from_ns == end;
  if (joins_previous && joins_next) {
    std::prev(it)->to_ns = it->to_ns;
    bookings.erase(it);
  } else if (joins_previous) {
    std::prev(it)->to_ns = end;
  } else if (joins_next) {
    it->from_ns = at;
  } else {
    bookings.insert(it, Booking{at, end});
  }
  return at;
}

}  // namespace lockstep::sim::machine
