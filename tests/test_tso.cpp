// x86-TSO store buffers: the litmus tests' verdicts (docs/sources.md section 1: the futex wake
// fast path is the store-buffering pattern), explored with the random strategy.
#include <catch2/catch.hpp>

#include "model/random_strategy.hpp"
#include "model/replay_strategy.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::sim;

namespace {

using P = SimPlatform;

// Two threads, two flags: each writes one and reads the other (SB); with `fence`, an mfence
// between the write and the read.
class StoreBuffering final : public SimWorkload {
 public:
  explicit StoreBuffering(bool fence) : fence_(fence) {}
  void setup(Engine& e) override {
    x_ = make_on<P, P::Atomic<std::uint32_t>>(0, 64);
    y_ = make_on<P, P::Atomic<std::uint32_t>>(0, 64);
    e.spawn("t0", 0, [this] {
      x_->store(1, std::memory_order_relaxed);
      if (fence_) P::fence(std::memory_order_seq_cst);
      r0_ = y_->load(std::memory_order_relaxed);
    });
    e.spawn("t1", 1, [this] {
      y_->store(1, std::memory_order_relaxed);
      if (fence_) P::fence(std::memory_order_seq_cst);
      r1_ = x_->load(std::memory_order_relaxed);
    });
  }
  void check(Engine&) override {
    if (r0_ == 0 && r1_ == 0) P::violation("sb_relaxed", "r0 == 0 && r1 == 0");
  }

 private:
  bool fence_;
  P::Atomic<std::uint32_t>* x_ = nullptr;
  P::Atomic<std::uint32_t>* y_ = nullptr;
  std::uint32_t r0_ = 9;
  std::uint32_t r1_ = 9;
};

int relaxed_outcomes(std::uint32_t store_buffer_entries, bool fence, Schedule* witness = nullptr) {
  FlatCostModel costs{FlatCosts{}};
  Engine engine(MachineShape{{0, 0}}, costs, EngineLimits{1000, store_buffer_entries});
  StoreBuffering w(fence);
  model::RandomStrategy random(11);
  int found = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    auto r = engine.run(w, random, nullptr, i);
    if (r.violation) {
      ++found;
      if (witness != nullptr && witness->empty()) *witness = r.schedule;
    }
  }
  return found;
}

}  // namespace

TEST_CASE("store buffering: the relaxed outcome is reachable under TSO only", "[tso]") {
  CHECK(relaxed_outcomes(0, false) == 0);  // SC
  CHECK(relaxed_outcomes(8, false) > 0);   // TSO
  CHECK(relaxed_outcomes(8, true) == 0);   // TSO with mfence
}

TEST_CASE("a TSO counterexample replays, drains included", "[tso]") {
  Schedule witness;
  REQUIRE(relaxed_outcomes(8, false, &witness) > 0);
  bool has_drain = false;
  for (const Choice& c : witness) has_drain |= c.kind == Choice::Kind::drain;
  CHECK(has_drain);
  FlatCostModel costs{FlatCosts{}};
  Engine engine(MachineShape{{0, 0}}, costs, EngineLimits{1000, 8});
  StoreBuffering w(false);
  model::ReplayStrategy replay(witness, EngineMode::explore);
  auto r = engine.run(w, replay, nullptr, 0);
  REQUIRE(r.violation);
  CHECK(r.violation->property == "sb_relaxed");
  CHECK(replay.consumed());
}

TEST_CASE("timed TSO: buffered stores become visible and the run is deterministic", "[tso]") {
  FlatCostModel costs{FlatCosts{}};
  Engine engine(MachineShape{{0, 0}}, costs, EngineLimits{100000, 8});
  StoreBuffering w(false);
  TimedStrategy timed(3);
  TraceRecorder a;
  TraceRecorder b;
  engine.run(w, timed, &a, 0);
  engine.run(w, timed, &b, 0);
  CHECK(a.text() == b.text());
  CHECK(a.text().find("\"op\":\"drain\"") != std::string::npos);
}

namespace {

// t1 writes four lines, then t0 (another core of the package) stores to all four and fences:
// each store needs its line from t1's core, a whole transfer.
class FourStores final : public SimWorkload {
 public:
  void setup(Engine& e) override {
    for (auto*& w : words_) w = make_on<P, P::Atomic<std::uint64_t>>(0, 64);
    flag_ = make_on<P, P::Atomic<std::uint64_t>>(0, 64);
    e.spawn("t1", 2, [this] {
      for (auto* w : words_) w->store(1, std::memory_order_relaxed);
      flag_->store(1, std::memory_order_seq_cst);
    });
    e.spawn("t0", 0, [this] {
      while (flag_->load(std::memory_order_acquire) == 0) P::cpu_relax();
      const std::uint64_t start = P::now();
      for (auto* w : words_) w->store(2, std::memory_order_relaxed);
      P::fence(std::memory_order_seq_cst);
      took_ns_ = P::now() - start;
    });
  }
  void check(Engine&) override {}
  std::uint64_t took_ns_ = 0;

 private:
  P::Atomic<std::uint64_t>* words_[4] = {};
  P::Atomic<std::uint64_t>* flag_ = nullptr;
};

std::uint64_t four_stores_ns(std::uint32_t store_buffer_entries) {
  machine::MemorySystem costs(machine::make_preset("nehalem-2s"));
  Engine engine(MachineShape{costs.topology().node_of_cpu()}, costs, EngineLimits{100000, store_buffer_entries});
  FourStores w;
  TimedStrategy timed(3);
  engine.run(w, timed, nullptr, 0);
  return w.took_ns_;
}

}  // namespace

// A buffered store asks for its line as it enters the buffer, so four stores' transfers are
// in flight together and the fence waits for about one; under SC each store waits for its
// own. (Before, the buffer asked for each line only once the store before it had landed:
// four transfers either way.)
TEST_CASE("timed TSO: buffered stores' transfers overlap; SC's do not", "[tso]") {
  const double c = machine::make_preset("nehalem-2s").c2c_same_package_ns;
  const std::uint64_t sc = four_stores_ns(0);
  const std::uint64_t tso = four_stores_ns(8);
  INFO("SC " << sc << " ns, TSO " << tso << " ns, one transfer " << c << " ns");
  CHECK(sc >= 4 * c);
  CHECK(tso < 2 * c);
}
