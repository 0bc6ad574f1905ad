// Link occupancy (sim/machine/interconnect.hpp): a message's trip over its route, first fit
// into each link direction's free time, on a two-package machine with one link whose numbers
// make every figure easy to check by hand.
#include <catch2/catch.hpp>

#include "sim/machine/interconnect.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"

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
  CHECK(request_waits(100) == 8);   // behind the first
  CHECK(request_waits(100) == 16);  // behind both
  CHECK(links.message(1, 0, Message::request, 100) == kRequestNs);  // the other direction is free
}

TEST_CASE_METHOD(Fixture, "a message takes the first gap it fits, before bookings made earlier", "[machine][links]") {
  links.set_now(100);
  CHECK(links.message(0, 1, Message::data, 200) == 10 + 64);  // holds [200, 264)
  CHECK(request_waits(150) == 0);   // [150, 158): fits before the data
  CHECK(request_waits(192) == 0);   // [192, 200): fits exactly, up to the data
  CHECK(request_waits(190) == 74);  // [190, 198) would overlap: after the data, at 264
  CHECK(request_waits(155) == 3);   // behind [150, 158), at 158
  CHECK(request_waits(300) == 0);   // after everything
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
  CHECK(request_waits(t) == 0);        // [t, t+8)
  CHECK(request_waits(t + 95) == 805); // [t+95, t+103) overlaps the burst: after it, at t+900
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
