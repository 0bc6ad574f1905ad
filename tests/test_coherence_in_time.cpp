// Coherence in time (docs/machines.md): a request for a line waits where the line's
// requests are ordered, reaches the owner later, and the owner keeps hitting its copy until
// then; N contenders are served one at a time in arrival order. Each expectation below is
// the arithmetic of the docs' table worked by hand from the preset's numbers, not the
// model's own code.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using namespace lockstep::sim::machine;

namespace {

constexpr std::uint64_t kLine = 0x40000;

struct Timed {
  explicit Timed(const MachineConfig& c) : config(c), memory(c) {}
  MachineConfig config;
  MemorySystem memory;
  // An access starting at `at`: when it ends (latencies are whole nanoseconds; each CPU
  // carries the fraction, so an end is within 1 ns of the exact one).
  double access(OpKind kind, CpuId cpu, std::uint64_t at) {
    return static_cast<double>(at + memory.access_ns(Access{kind, cpu, kLine, 8, at, 0}));
  }
};

}  // namespace

// nehalem-2s: CPUs 0-3 in package 0, 4-7 in package 1, one core each.
TEST_CASE("the owner keeps hitting its copy until the request reaches it", "[machine][coherence-in-time]") {
  Timed m(make_preset("nehalem-2s"));
  const double c = m.config.c2c_same_package_ns;
  const double locked = m.config.locked_ns;
  const double l1 = m.config.caches.front().hit_ns;
  REQUIRE(locked > 0);
  const double owned = m.access(OpKind::store, 0, 0);  // CPU 0 holds it Modified
  REQUIRE(m.memory.state_of(0, kLine) == 'M');

  // CPU 1's locked add at t: to the package's directory (c/3), on to CPU 0 (c/3), the data
  // back (c/3), then the locked instruction itself.
  const std::uint64_t t = 1000;
  REQUIRE(owned < t);
  const double done1 = m.access(OpKind::rmw, 1, t);
  CHECK(done1 == Approx(t + c + locked).margin(1));
  CHECK(m.memory.last_in_flight());
  const double served = t + 2 * c / 3;  // when the request reaches CPU 0

  // Until then CPU 0 writes its copy as a hit, as often as it likes; the directory already
  // names CPU 1.
  for (std::uint64_t at = t + 1; at + 2 < served; at += 3) {
    CHECK(m.access(OpKind::rmw, 0, at) == Approx(at + l1 + locked).margin(1));
    CHECK(m.memory.last_source() == Source::l1);
    CHECK_FALSE(m.memory.last_in_flight());
  }
  CHECK(m.memory.departure_hits() >= 3);
  CHECK(m.memory.state_of(1, kLine) == 'M');

  // After it, CPU 0 has lost the line: its request is ordered behind CPU 1's transaction
  // (which ends at done1, the locked add included) and then pays a whole handover.
  const auto after = static_cast<std::uint64_t>(std::ceil(served)) + 1;
  const double done0 = m.access(OpKind::store, 0, after);
  CHECK(m.memory.last_source() == Source::same_package_core);
  CHECK(m.memory.last_in_flight());
  CHECK(done0 == Approx(std::max(after + c / 3, done1) + 2 * c / 3).margin(1));
}

TEST_CASE("N contenders for a line pay N handovers in arrival order, each at its own distance",
          "[machine][coherence-in-time]") {
  Timed m(make_preset("nehalem-2s"));
  const double c = m.config.c2c_same_package_ns;
  const double locked = m.config.locked_ns;
  m.access(OpKind::store, 0, 0);
  // CPUs 1, 2 and 3 ask within a nanosecond of each other: each waits for the one before
  // it to have the line (and finish its locked add), then pays two legs of the transfer.
  double previous = m.access(OpKind::rmw, 1, 1000);
  CHECK(previous == Approx(1000 + c + locked).margin(1));
  for (CpuId cpu : {2, 3}) {
    const double done = m.access(OpKind::rmw, cpu, 1000 + static_cast<std::uint64_t>(cpu));
    CHECK(done == Approx(previous + 2 * c / 3 + locked).margin(1.5));
    previous = done;
  }
  // CPU 4 in the other package asks next: its request crosses QPI to the owner's package
  // (home is package 0, the owner's), waits for CPU 3's transaction, then the owner hands the
  // line over and the data crosses back: a longer handover than any within the package.
  const double remote = m.access(OpKind::rmw, 4, 1004);
  CHECK(m.memory.last_source() == Source::remote_cache);
  CHECK(remote - previous > m.config.remote_cache_ns + m.config.links.front().latency_ns + locked);
  CHECK(remote - previous > 2 * c / 3 + locked);
}

TEST_CASE("readers keep reading their Shared copies until the invalidation arrives", "[machine][coherence-in-time]") {
  Timed m(make_preset("nehalem-2s"));
  const double l1 = m.config.caches.front().hit_ns;
  m.access(OpKind::store, 0, 0);
  m.access(OpKind::load, 1, 100);  // CPU 0 and CPU 1 share it
  m.access(OpKind::load, 2, 200);
  REQUIRE(m.memory.state_of(2, kLine) != 'I');
  // CPU 3 writes at 1000: the invalidations reach CPUs 0-2 half an L3 hit later.
  m.access(OpKind::store, 3, 1000);
  CHECK(m.memory.state_of(2, kLine) == 'I');
  const double l3 = m.config.caches.back().hit_ns;
  REQUIRE(l3 / 2 > 2);
  CHECK(m.access(OpKind::load, 2, 1001) == Approx(1001 + l1).margin(1));  // still its copy
  CHECK(m.memory.last_source() == Source::l1);
  // A Shared copy is not written in place: a write by CPU 1 in the window is a miss.
  m.access(OpKind::store, 1, 1002);
  CHECK(m.memory.last_source() != Source::l1);
  // After the window, CPU 2's read misses.
  m.access(OpKind::load, 2, 1000 + static_cast<std::uint64_t>(l3) + 200);
  CHECK(m.memory.last_source() != Source::l1);
}

// c2c_legs: the request leg r c, the forward leg f c, the data leg the rest. An uncontended
// transfer still costs c; the owner's copy lasts until the request reaches it, t + (r + f) c;
// a request queued behind a transaction pays the forward and data legs after it.
TEST_CASE("a transfer's legs split it without changing its whole", "[machine][coherence-in-time]") {
  MachineConfig config = make_preset("nehalem-2s");
  config.c2c_legs = MachineConfig::C2cLegs{0.2, 0.1};
  Timed m(config);
  const double c = config.c2c_same_package_ns;
  const double locked = config.locked_ns;
  m.access(OpKind::store, 0, 0);
  const std::uint64_t t = 1000;
  const double done1 = m.access(OpKind::rmw, 1, t);
  CHECK(done1 == Approx(t + c + locked).margin(1));
  const double served = t + 0.3 * c;
  CHECK(m.access(OpKind::store, 0, t + 1) == Approx(t + 1 + config.caches.front().hit_ns).margin(1));
  CHECK(m.memory.last_source() == Source::l1);  // before `served`: a hit on the departing copy
  const auto after = static_cast<std::uint64_t>(std::ceil(served)) + 1;
  const double done0 = m.access(OpKind::store, 0, after);
  CHECK(m.memory.last_source() == Source::same_package_core);
  CHECK(done0 == Approx(std::max(after + 0.2 * c, done1) + 0.8 * c).margin(1));
}
