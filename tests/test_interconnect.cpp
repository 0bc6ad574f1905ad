// Link occupancy (sim/machine/interconnect.hpp): a message's trip over its route, first fit
// into each link direction's free time, on a two-package machine with one link whose numbers
// make every figure easy to check by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/machine/interconnect.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"
#include "sim/rng.hpp"

using namespace lockstep::sim::machine;

namespace {

// One link between packages 0 and 1: 10 ns a hop, 1 byte per ns, so an 8-byte request holds
// a direction for 8 ns and arrives 18 ns after it is ready on an idle link, and a 64-byte
// data message holds it for 64 ns.
constexpr double kRequestNs = 18;

MachineConfig two_packages() {
  MachineConfig c = make_preset("nehalem-2s");
  c.links = {Link{0, 1, 10, 1}};
  return c;
}

struct Fixture {
  MachineConfig config = two_packages();
  Topology topology{config};
  Interconnect links{topology, 8, 64};

  // When a request ready at `ready` starts to cross (it arrives kRequestNs later when it does
  // not wait).
  double request_waits(double ready) { return links.message(0, 1, Message::request, ready) - kRequestNs; }
};

}  // namespace

TEST_CASE_METHOD(Fixture, "a link carries one message at a time, first come first served", "[machine][links]") {
  links.set_now(100);
  CHECK(links.message(0, 0, Message::request, 100) == 0);  // same package: no link
  CHECK(request_waits(100) == 0);
  CHECK(request_waits(100) == 8);                                   // behind the first
  CHECK(request_waits(100) == 16);                                  // behind both
  CHECK(links.message(1, 0, Message::request, 100) == kRequestNs);  // the other direction is free
}

TEST_CASE_METHOD(Fixture, "a message takes the first gap it fits, before bookings made earlier", "[machine][links]") {
  links.set_now(100);
  CHECK(links.message(0, 1, Message::data, 200) == 10 + 64);  // holds [200, 264)
  CHECK(request_waits(150) == 0);                             // [150, 158): fits before the data
  CHECK(request_waits(192) == 0);                             // [192, 200): fits exactly, up to the data
  CHECK(request_waits(190) == 74);                            // [190, 198) would overlap: after the data, at 264
  CHECK(request_waits(155) == 3);                             // behind [150, 158), at 158
  CHECK(request_waits(300) == 0);                             // after everything
}

TEST_CASE_METHOD(Fixture, "a message steps over every booking whose gap is too short for it", "[machine][links]") {
  links.set_now(100);
  for (double t : {100, 110, 120, 130}) REQUIRE(request_waits(t) == 0);  // [100, 108) ... [130, 138)
  // 64 ns of data ready at 101 fits none of the 2 ns gaps: it starts at 138, after all four.
  CHECK(links.message(0, 1, Message::data, 101) == 138 + 10 + 64 - 101);
  // A request ready at 109 steps over three (the gaps are 2 ns, it needs 8): [138, 146) is
  // taken by the data now, so it starts at 202.
  CHECK(request_waits(109) == 202 - 109);
  // Ready at 111, with the last three bookings ahead of it: it steps over all three again,
  // to 210.
  CHECK(request_waits(111) == 210 - 111);
}

TEST_CASE_METHOD(Fixture, "bookings that ended are history, however many pile up", "[machine][links]") {
  // Hundreds of messages, each after the last has ended: every one crosses at once, and the
  // link's past (dropped only now and then) never delays a later one.
  for (int i = 0; i < 500; ++i) {
    const double t = 1000.0 * i;
    links.set_now(t);
    REQUIRE(request_waits(t) == 0);
    REQUIRE(request_waits(t + 500) == 0);
  }
  // A burst still queues, and a message ready early still finds a gap before later bookings.
  const double t = 1'000'000;
  links.set_now(t);
  for (int i = 0; i < 100; ++i) REQUIRE(request_waits(t + 100) == 8 * i);  // [t+100, t+900)
  CHECK(request_waits(t) == 0);                                            // [t, t+8)
  CHECK(request_waits(t + 95) == 805);  // [t+95, t+103) overlaps the burst: after it, at t+900
  // Many separate bookings still ahead (gaps of 12 ns between 8 ns ones) all keep holding
  // their time while the link drops its past now and then.
  const double u = 2'000'000;
  links.set_now(u);
  for (int i = 0; i < 100; ++i) REQUIRE(request_waits(u + 20 * i) == 0);
  for (int i = 0; i < 100; i += 7) REQUIRE(request_waits(u + 20 * i + 4) == 4);  // behind booking i
}

TEST_CASE_METHOD(Fixture, "reset frees every link", "[machine][links]") {
  links.set_now(0);
  for (int i = 0; i < 10; ++i) links.message(0, 1, Message::data, 0);
  links.reset();
  links.set_now(0);
  CHECK(request_waits(0) == 0);
}

// The definition, for comparison: a message starts at the earliest time from `ready` on at
// which it overlaps nothing booked before it. Thousands of random messages on whole
// nanoseconds (so they often end exactly where others begin), ready a little after the
// current access or well ahead of it, must start where the definition says, however the
// link stores, merges, searches and drops its bookings.
TEST_CASE_METHOD(Fixture, "every message starts where first fit over all earlier bookings says", "[machine][links]") {
  lockstep::sim::Rng rng(11);
  struct Interval {
    double from, to;
  };
  std::vector<Interval> booked;
  auto first_fit = [&booked](double ready, double length) {
    double at = ready;
    for (bool moved = true; moved;) {
      moved = false;
      for (const Interval& x : booked) {
        if (x.from < at + length && at < x.to) {
          at = x.to;
          moved = true;
        }
      }
    }
    booked.push_back({at, at + length});
    return at;
  };
  double now = 0;
  for (int n = 0; n < 20000; ++n) {
    // Quiet stretches, and busy ones with requests ready on a 10 ns grid. (Queued requests
    // close most short gaps, so stepping over several at once has its own test above.)
    const bool busy = n / 1000 % 2 == 1;
    now += static_cast<double>(rng.below(busy ? 3 : 12));
    links.set_now(now);
    const bool data = rng.below(4) == 0;
    const double length = data ? 64 : 8;
    // Most messages are ready soon; some (a data reply after DRAM) well ahead.
    double ready = now + static_cast<double>(rng.below(8) == 0 ? rng.below(400) : rng.below(40));
    if (busy && !data) ready = now + 10.0 * static_cast<double>(rng.below(8));
    const double expected = first_fit(ready, length);
    const double took = links.message(0, 1, data ? Message::data : Message::request, ready);
    REQUIRE(took - 10 - length == expected - ready);
  }
}

namespace {

// Three packages in a chain, 0 - 1 - 2, with the fixture's numbers: a broadcast from 0 to
// package 2 passes through 1.
struct Chain {
  MachineConfig config = [] {
    MachineConfig c = make_preset("nehalem-2s");
    c.packages = 3;
    c.links = {Link{0, 1, 10, 1}, Link{1, 2, 10, 1}};
    return c;
  }();
  Topology topology{config};
  Interconnect links{topology, 8, 64};
  double arrival[3] = {-1, -1, -1};
};

}  // namespace

TEST_CASE_METHOD(Chain, "a broadcast crosses each link of its tree once", "[machine][links]") {
  links.set_now(100);
  links.broadcast(0, 0b110, Message::request, 100, arrival);
  CHECK(arrival[1] == 100 + 18);  // [100, 108) on 0->1, head at 110, tail at 118
  CHECK(arrival[2] == 110 + 18);  // forwarded by 1: [110, 118) on 1->2
  CHECK(arrival[0] == -1);        // not a target: left alone
  // Two unicast requests would have held 0->1 for 16 ns; the broadcast held it for 8.
  CHECK(links.message(0, 1, Message::request, 100) == 8 + 18);
  CHECK(links.message(1, 2, Message::request, 110) == 8 + 18);
}

TEST_CASE_METHOD(Chain, "a broadcast books only the links on the way to its targets", "[machine][links]") {
  links.set_now(0);
  links.broadcast(0, 0b010, Message::request, 0, arrival);  // to 1 only
  CHECK(arrival[1] == 18);
  CHECK(arrival[2] == -1);
  CHECK(links.message(1, 2, Message::request, 10) == 18);     // 1->2 was not booked
  links.broadcast(2, 0b001, Message::request, 100, arrival);  // to 0, through 1
  CHECK(arrival[0] == 100 + 10 + 10 + 8);
  CHECK(links.message(2, 1, Message::request, 100) == 8 + 18);  // 2->1 held [100, 108)
  CHECK(links.message(1, 0, Message::request, 110) == 8 + 18);  // 1->0 held [110, 118)
  links.broadcast(1, 0b010, Message::request, 200, arrival);    // the source alone: no link
  CHECK(arrival[1] == 200);
}

// On idle links a broadcast reaches each target when a message of its own would: the tree
// is the routes' union, so only the sharing of links differs.
TEST_CASE("on idle links a broadcast arrives when unicast messages would", "[machine][links]") {
  for (const char* preset : {"barcelona-8s", "xeon-e7-16s"}) {
    const MachineConfig config = make_preset(preset);
    const Topology topology{config};
    const int n = topology.packages();
    for (int from = 0; from < n; ++from) {
      Interconnect tree{topology, config.request_bytes, config.data_bytes};
      std::vector<double> arrival(static_cast<std::size_t>(n), -1);
      tree.broadcast(from, (1u << n) - 1, Message::request, 0, arrival.data());
      for (int to = 0; to < n; ++to) {
        Interconnect idle{topology, config.request_bytes, config.data_bytes};
        INFO(preset << ": from " << from << " to " << to);
        CHECK(arrival[static_cast<std::size_t>(to)] == idle.message(from, to, Message::request, 0));
      }
    }
  }
}
