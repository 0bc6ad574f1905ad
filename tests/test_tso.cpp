// x86-TSO store buffers: the litmus tests' verdicts (docs/sources.md section 1: the futex wake
// fast path is the store-buffering pattern), explored with the random strategy.
#include <catch2/catch.hpp>

#include "model/random_strategy.hpp"
#include "model/replay_strategy.hpp"
#include "sim/exec/sim_platform.hpp"
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
