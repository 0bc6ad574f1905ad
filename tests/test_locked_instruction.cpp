// A locked instruction's own cost, and where it falls (docs/machines.md, "Locked
// instructions"): `locked_before_line` is the share spent before the instruction reaches its
// line, while another core's request can still take the line; the rest holds the line.
// The expectations are worked by hand from the overrides below, not from the model's code.
#include <catch2/catch.hpp>

#include <string>

#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "tests/scenario_text.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using namespace lockstep::sim::machine;

namespace {

// t0 owns x (its store, a miss to DRAM: 180 ns on nehalem-2s), then exchanges 2 into it: a
// locked instruction that costs 200 ns of its own, from 180 to 380 ns. t1 loads x after 25
// pauses of 10 ns, at 250 ns, inside that instruction; its request reaches t0 two legs of a
// 42.75 ns transfer later, at about 278 ns. With share 0 x is 2 from 180 ns and the line is
// held to past 380 ns, so the load waits and reads 2; with share 1 the exchange reaches x
// only at 380 ns, and t1 has taken the line with 1 in it by then.
std::string race(double before_line, int t1_sees) {
  return "name: a load inside a locked instruction\n"
         "machine: {preset: nehalem-2s, locked_ns: 200, pause_ns: 10, locked_before_line: " +
         std::to_string(before_line) +
         "}\n"
         "variables:\n"
         "  x: {init: 0, align: 64}\n"
         "threads:\n"
         "  - name: t0\n"
         "    cpu: 0\n"
         "    program:\n"
         "      - store: {var: x, value: 1}\n"
         "      - exchange: {var: x, value: 2, into: r0}\n"
         "  - name: t1\n"
         "    cpu: 1\n"
         "    program:\n"
         "      - loop: {times: 25, body: [pause]}\n"
         "      - load: {var: x, into: r1}\n"
         "properties:\n"
         "  - {name: t1_saw, forall: \"t1.r1 == " +
         std::to_string(t1_sees) +
         " && t0.r0 == 1\"}\n"
         "strategy: {kind: timed, seed: 1}\n"
         "expect: pass\n";
}

}  // namespace

TEST_CASE("a load that arrives during a locked instruction's wait takes the line first", "[machine][locked]") {
  SECTION("all of the cost held: the load waits and sees the exchange's value") {
    const auto row = testing::check_scenario_text("locked", "held", race(0, 2));
    CHECK(row.result == "pass");
    CHECK(row.message == "");
  }
  SECTION("all of it before the line: the load gets there first and sees the old value") {
    const auto row = testing::check_scenario_text("locked", "before", race(1, 1));
    CHECK(row.result == "pass");
    CHECK(row.message == "");
  }
}

TEST_CASE("locked_before_line splits a locked instruction's cost, which stays whole", "[machine][locked]") {
  for (const double share : {0.0, 0.5, 1.0}) {
    INFO("locked_before_line " << share);
    MachineConfig config = make_preset("nehalem-2s");
    config.locked_ns = 6;
    config.locked_before_line = share;
    MemorySystem memory(config);
    const double l1 = config.caches.front().hit_ns;
    const std::uint64_t line = 0x40000;
    memory.access_ns(Access{OpKind::store, 0, line, 8, 0, 0});  // CPU 0 holds it Modified
    // The carried fractions make each figure within 1 ns of the exact one.
    const auto before = static_cast<double>(memory.locked_prelude_ns(0));
    CHECK(before == Approx(share * 6).margin(1));
    const auto access = static_cast<double>(memory.access_ns(Access{OpKind::rmw, 0, line, 8, 1000, 0}));
    CHECK(memory.last_source() == Source::l1);
    CHECK(access == Approx(l1 + (1 - share) * 6).margin(1));
    CHECK(before + access == Approx(l1 + 6).margin(1));
  }
}

TEST_CASE("transfer_jitter_ns delays each transfer by a draw below it, the same draws every execution",
          "[machine][jitter]") {
  MachineConfig config = make_preset("nehalem-2s");
  config.transfer_jitter_ns = 10;
  MemorySystem memory(config);
  const double c = config.c2c_same_package_ns;
  const auto transfers = [&] {
    memory.reset();
    std::vector<std::uint64_t> costs;
    for (std::uint64_t i = 0; i < 64; ++i) {
      const std::uint64_t line = 0x40000 + i * 64;
      memory.access_ns(Access{OpKind::store, 0, line, 8, 0, 0});
      costs.push_back(memory.access_ns(Access{OpKind::load, 1, line, 8, 10000 + i * 1000, 0}));
      REQUIRE(memory.last_source() == Source::same_package_core);
    }
    return costs;
  };
  const std::vector<std::uint64_t> first = transfers();
  double sum = 0;
  for (const std::uint64_t ns : first) {
    CHECK(static_cast<double>(ns) >= c - 1);
    CHECK(static_cast<double>(ns) < c + 10 + 1);
    sum += static_cast<double>(ns);
  }
  // 64 uniform draws below 10: their mean is 5 give or take 3/8 (one standard deviation).
  CHECK(sum / 64 == Approx(c + 5).margin(1.5));
  CHECK(transfers() == first);  // reset() starts the draws over
  config.transfer_jitter_ns = 0;
  MemorySystem exact(config);
  exact.access_ns(Access{OpKind::store, 0, 0x40000, 8, 0, 0});
  CHECK(static_cast<double>(exact.access_ns(Access{OpKind::load, 1, 0x40000, 8, 10000, 0})) == Approx(c).margin(1));
}
