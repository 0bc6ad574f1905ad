// The latency probe's read order (sim/line_cycle.hpp) against what a pointer chase through a
// random cycle does: every line once per period, the same order each period; and the
// simulated probe's mean where one level holds part of the buffer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/line_cycle.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/probes.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::sim;

TEST_CASE("line cycle: every line once a period, the same order every period", "[probe]") {
  for (const std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 64ull, 65ull, 1000ull, 4096ull, 4097ull, 100003ull}) {
    CAPTURE(n);
    const LineCycle cycle(n, 42);
    std::vector<bool> seen(n, false);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t line = cycle.at(i);
      REQUIRE(line < n);
      REQUIRE_FALSE(seen[line]);
      seen[line] = true;
    }
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(n, 500); ++i) CHECK(cycle.at(i + n) == cycle.at(i));
  }
}

TEST_CASE("line cycle: a random order, and another seed's is another", "[probe]") {
  const std::uint64_t n = 4096;
  const LineCycle a(n, 1);
  const LineCycle b(n, 2);
  std::uint64_t in_place = 0;
  std::uint64_t next_line = 0;  // steps whose line follows the previous one in memory
  std::uint64_t same = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    in_place += a.at(i) == i;
    next_line += i > 0 && a.at(i) == a.at(i - 1) + 1;
    same += a.at(i) == b.at(i);
  }
  // A random permutation fixes one point on average and has about one ascent by one.
  CHECK(in_place < 10);
  CHECK(next_line < 10);
  CHECK(same < 10);
}

// A chase through a cycle larger than a least-recently-used level misses it every time (each
// line comes back only after the whole cycle has passed through); random reads would hit it
// in proportion to the part it holds. nehalem-2s's L1 is 32 KiB of LRU sets.
TEST_CASE("latency probe: past a level's size the chase pays the next level's hit", "[probe][machine]") {
  const machine::MachineConfig config = machine::make_preset("nehalem-2s");
  REQUIRE(config.caches[0].replacement == machine::Replacement::lru);
  machine::MemorySystem memory(config);
  Engine engine(MachineShape{memory.topology().node_of_cpu()}, memory);
  machine::LatencyProbeParams p;
  p.bytes = 2 * config.caches[0].size_bytes;  // twice L1, a quarter of L2
  p.placement = Placement{false, 0};
  p.samples = 4000;
  machine::LatencyProbe probe(p);
  TimedStrategy timed(1);
  REQUIRE_FALSE(engine.run(probe, timed, nullptr, 0).violation);
  std::uint64_t reads = 0;
  std::uint64_t l1_hits = 0;
  for (const auto& [ns, count] : probe.counts()) {
    reads += count;
    if (static_cast<double>(ns) <= config.caches[0].hit_ns + 0.5) l1_hits += count;
  }
  CHECK(reads == 4000);
  // Random reads would hit L1 about half the time here.
  CHECK(l1_hits < reads / 20);
}
