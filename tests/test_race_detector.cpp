// The data_race property (sim/exec/race_detector.hpp): plain accesses of different threads
// that happens-before does not order are reported; those that a lock, a release/acquire
// pair, fences or a wakeup order are not. Each case runs under SC and under x86-TSO, where a
// buffered store publishes its clock only when it drains.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "core/sync/ticket_lock.hpp"
#include "model/random_strategy.hpp"
#include "sim/exec/sim_platform.hpp"
#include "tests/lambda_workload.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using lockstep::testing::LambdaWorkload;
using P = SimPlatform;

namespace {

constexpr std::uint32_t kTsoEntries = 8;

struct RaceRuns {
  int races = 0;
  int others = 0;  // violations of anything else
  std::string first_message;
};

// Runs `w` under `executions` random schedules with race detection on (or off).
RaceRuns run_random(LambdaWorkload& w, std::uint32_t store_buffers, int executions, bool detect = true) {
  FlatCostModel costs{FlatCosts{}};
  EngineLimits limits{100'000, store_buffers};
  limits.detect_races = detect;
  Engine engine(MachineShape{{0, 0}}, costs, limits);
  model::RandomStrategy random(7);
  RaceRuns out;
  for (int i = 0; i < executions; ++i) {
    const ExecutionResult r = engine.run(w, random, nullptr, static_cast<std::uint64_t>(i));
    if (!r.violation) continue;
    if (r.violation->property != "data_race") {
      ++out.others;
      continue;
    }
    if (out.races++ == 0) out.first_message = r.violation->message;
  }
  return out;
}

// Message passing: the producer writes plain data, then sets a flag with `release`; the
// consumer spins on the flag with `acquire`, then reads the data.
LambdaWorkload message_passing(std::memory_order release, std::memory_order acquire, P::Shared<std::uint64_t>*& data,
                               P::Atomic<std::uint64_t>*& flag) {
  LambdaWorkload w;
  w.on_setup = [&data, &flag, release, acquire](Engine& e) {
    data = make_on<P, P::Shared<std::uint64_t>>(0, 64);
    flag = make_on<P, P::Atomic<std::uint64_t>>(0, 64);
    P::label(data, 8, "data");
    P::label(flag, 8, "flag");
    e.spawn("producer", 0, [&data, &flag, release] {
      data->store(42);
      flag->store(1, release);
    });
    e.spawn("consumer", 1, [&data, &flag, acquire] {
      while (flag->load(acquire) == 0) P::cpu_relax();
      if (data->load() != 42) P::violation("stale", "read the data before it was written");
    });
  };
  return w;
}

}  // namespace

TEST_CASE("a racy counter on plain data is a data race naming both accesses", "[race]") {
  const std::uint32_t store_buffers = GENERATE(0U, kTsoEntries);
  CAPTURE(store_buffers);
  P::Shared<std::uint64_t>* x = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Shared<std::uint64_t>>(0, 8);
    P::label(x, 8, "x");
    e.spawn("t0", 0, [&] { x->store(x->load() + 1); });
    e.spawn("t1", 1, [&] { x->store(x->load() + 1); });
  };
  const RaceRuns r = run_random(w, store_buffers, 50);
  // Nothing orders the two threads, so every execution races.
  CHECK(r.races == 50);
  CHECK_THAT(r.first_message, Catch::StartsWith("data race on x: plain "));
  CHECK_THAT(r.first_message, Catch::Contains("thread 't0'") && Catch::Contains("thread 't1'"));
  CHECK_THAT(r.first_message, Catch::Contains("not ordered by happens-before"));
  // Off unless asked for.
  CHECK(run_random(w, store_buffers, 50, false).races == 0);
}

TEST_CASE("a counter under a ticket lock has no data race", "[race]") {
  const std::uint32_t store_buffers = GENERATE(0U, kTsoEntries);
  CAPTURE(store_buffers);
  P::Shared<std::uint64_t>* x = nullptr;
  TicketLock<P>* lock = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    x = make_on<P, P::Shared<std::uint64_t>>(0, 8);
    lock = make_on<P, TicketLock<P>>(0, 64);
    for (int t = 0; t < 3; ++t) {
      e.spawn("t" + std::to_string(t), t % 2, [&] {
        for (int i = 0; i < 2; ++i) {
          TicketLock<P>::Node node;
          lock->lock(node);
          x->store(x->load() + 1);
          lock->unlock(node);
        }
      });
    }
  };
  w.on_check = [&](Engine&) {
    if (x->load() != 6) P::violation("lost_update", "x != 6");
  };
  const RaceRuns r = run_random(w, store_buffers, 300);
  CHECK(r.races == 0);
  CHECK(r.others == 0);
}

TEST_CASE("message passing races unless a release store meets an acquire load", "[race]") {
  const std::uint32_t store_buffers = GENERATE(0U, kTsoEntries);
  // The hardware (SC, or x86-TSO's FIFO buffers) never shows stale data here; the C++
  // memory model still calls every pairing but release/acquire a race, and so does the
  // detector, in every execution.
  const auto [release, acquire, races] =
      GENERATE(std::tuple{std::memory_order_release, std::memory_order_acquire, false},
               std::tuple{std::memory_order_relaxed, std::memory_order_relaxed, true},
               std::tuple{std::memory_order_release, std::memory_order_relaxed, true},
               std::tuple{std::memory_order_relaxed, std::memory_order_acquire, true});
  CAPTURE(store_buffers, release, acquire);
  P::Shared<std::uint64_t>* data = nullptr;
  P::Atomic<std::uint64_t>* flag = nullptr;
  LambdaWorkload w = message_passing(release, acquire, data, flag);
  const RaceRuns r = run_random(w, store_buffers, 100);
  CHECK(r.races == (races ? 100 : 0));
  CHECK(r.others == 0);
  if (races) {
    CHECK_THAT(r.first_message, Catch::StartsWith("data race on data: plain load by thread 'consumer' and the "
                                                  "earlier plain store by thread 'producer'"));
  }
}

TEST_CASE("fences make relaxed message passing race free", "[race]") {
  const std::uint32_t store_buffers = GENERATE(0U, kTsoEntries);
  CAPTURE(store_buffers);
  P::Shared<std::uint64_t>* data = nullptr;
  P::Atomic<std::uint64_t>* flag = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    data = make_on<P, P::Shared<std::uint64_t>>(0, 64);
    flag = make_on<P, P::Atomic<std::uint64_t>>(0, 64);
    e.spawn("producer", 0, [&] {
      data->store(42);
      P::fence(std::memory_order_release);
      flag->store(1, std::memory_order_relaxed);
    });
    e.spawn("consumer", 1, [&] {
      while (flag->load(std::memory_order_relaxed) == 0) P::cpu_relax();
      P::fence(std::memory_order_acquire);
      data->load();
    });
  };
  CHECK(run_random(w, store_buffers, 300).races == 0);
}

TEST_CASE("an unpark orders the waker's writes before the woken thread's reads", "[race]") {
  const std::uint32_t store_buffers = GENERATE(0U, kTsoEntries);
  CAPTURE(store_buffers);
  P::Shared<std::uint64_t>* data = nullptr;
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    data = make_on<P, P::Shared<std::uint64_t>>(0, 64);
    // The sleeper may park before or after the unpark (a permit): ordered either way.
    const ThreadId sleeper = e.spawn("sleeper", 0, [&] {
      P::park();
      data->load();
    });
    e.spawn("waker", 1, [&, sleeper] {
      data->store(1);
      P::unpark(sleeper);
    });
  };
  const RaceRuns r = run_random(w, store_buffers, 300);
  CHECK(r.races == 0);
  CHECK(r.others == 0);
}

TEST_CASE("under x86-TSO a release store publishes when it drains, not when it is issued", "[race]") {
  P::Shared<std::uint64_t>* data = nullptr;
  P::Atomic<std::uint64_t>* flag = nullptr;
  bool issued = false;      // host-side: the producer's release store has been executed
  bool read_stale = false;  // the consumer read 0 from the flag after that
  LambdaWorkload w;
  w.on_setup = [&](Engine& e) {
    issued = read_stale = false;
    data = make_on<P, P::Shared<std::uint64_t>>(0, 64);
    flag = make_on<P, P::Atomic<std::uint64_t>>(0, 64);
    e.spawn("producer", 0, [&] {
      data->store(42);
      flag->store(1, std::memory_order_release);
      issued = true;
    });
    e.spawn("consumer", 1, [&] {
      const bool was_issued = issued;
      if (flag->load(std::memory_order_acquire) == 0 && was_issued) read_stale = true;
      data->load();
    });
  };
  FlatCostModel costs{FlatCosts{}};
  EngineLimits limits{100'000, kTsoEntries};
  limits.detect_races = true;
  Engine engine(MachineShape{{0, 0}}, costs, limits);
  model::RandomStrategy random(3);
  int stale = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const ExecutionResult r = engine.run(w, random, nullptr, i);
    if (!read_stale) continue;
    // The flag's store sat in the producer's buffer: the acquire synchronized with nothing,
    // so the data accesses are unordered.
    ++stale;
    REQUIRE(r.violation);
    CHECK(r.violation->property == "data_race");
  }
  CHECK(stale > 0);
}
