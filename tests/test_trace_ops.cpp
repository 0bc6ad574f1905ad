// The members revisions of trace version 1 added to memory operations (docs/traces.md):
// `src`, `peer` and `st` on the machine model, `buf` under x86-TSO; and that the trace notes
// designs write (lock and futex events) change nothing in the execution they describe.
#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/futex/futex_table.hpp"
#include "core/usync/drepper_mutex.hpp"
#include "model/random_strategy.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"
#include "sim/timed_strategy.hpp"
#include "tests/lambda_workload.hpp"
#include "tests/scenario_fixtures.hpp"
#include "tests/traced_run.hpp"

using namespace lockstep;
using lockstep::testing::hex_address;
using lockstep::testing::library_scenario;
using lockstep::testing::traced_run;
using lockstep::testing::TracedRun;
using nlohmann::json;

namespace {

bool memory_op(const json& e) {
  if (e.at("ev") != "op") return false;
  static const std::set<std::string> kinds{"load", "store", "plain_load", "plain_store", "rmw"};
  return kinds.count(e.at("op").get<std::string>()) == 1;
}

}  // namespace

TEST_CASE("a lock bouncing between sockets shows lines coming from the other package's caches", "[trace]") {
  const TracedRun run = traced_run(lockstep::testing::fixture("good/trace_lock_bounce.yaml"));
  const auto node_of_cpu = run.header.at("node_of_cpu").get<std::vector<int>>();
  static const std::set<std::string> kSources{"l1",           "l2",         "l3",          "same_package_core",
                                              "remote_cache", "dram_local", "dram_remote", "upgrade"};
  std::map<std::string, int> by_source;
  for (const json& e : run.events) {
    if (!memory_op(e)) continue;
    INFO(e.dump());
    REQUIRE(e.contains("src"));  // SC, so no access is forwarded or buffered
    const std::string src = e.at("src");
    REQUIRE(kSources.count(src) == 1);
    ++by_source[src];
    // The line's state after the access: a write leaves it Modified here.
    REQUIRE(e.contains("st"));
    const std::string st = e.at("st");
    CHECK(std::string("MOESF").find(st) != std::string::npos);
    if (e.at("op") != "load" && e.at("op") != "plain_load") CHECK(st == "M");
    const bool transfer = src == "same_package_core" || src == "remote_cache";
    REQUIRE(e.contains("peer") == transfer);
    if (!transfer) continue;
    const int peer = e.at("peer");
    const int cpu = e.at("cpu");
    CHECK(peer != cpu);
    const bool other_package =
        node_of_cpu.at(static_cast<std::size_t>(peer)) != node_of_cpu.at(static_cast<std::size_t>(cpu));
    CHECK(other_package == (src == "remote_cache"));
  }
  CHECK(by_source["remote_cache"] > 0);
  CHECK(by_source["same_package_core"] > 0);
  CHECK(by_source["l1"] > 0);
}

TEST_CASE("the flat machine writes no src, peer or buf", "[trace]") {
  const TracedRun run = traced_run(library_scenario("basics/counter-timed.yaml"));
  int ops = 0;
  for (const json& e : run.events) {
    if (!memory_op(e)) continue;
    ++ops;
    INFO(e.dump());
    CHECK_FALSE(e.contains("src"));
    CHECK_FALSE(e.contains("peer"));
    CHECK_FALSE(e.contains("st"));
    CHECK_FALSE(e.contains("buf"));
  }
  CHECK(ops > 0);
}

TEST_CASE("every buffered store drains later, in its thread's order", "[trace]") {
  const std::string scenario =
      GENERATE("futex/lost-wakeup-missing-barrier.yaml", "litmus/sb-tso.yaml", "futex/lost-wakeup-fixed.yaml");
  CAPTURE(scenario);
  const TracedRun run = traced_run(library_scenario(scenario));
  std::map<int, std::deque<std::pair<std::uint64_t, std::uint64_t>>> buffers;  // per thread: addr, value
  int buffered = 0;
  for (const json& e : run.events) {
    if (e.at("ev") != "op") continue;
    INFO(e.dump());
    auto& buffer = buffers[e.at("th")];
    if (e.contains("buf")) {
      REQUIRE(e.at("buf") == true);
      REQUIRE((e.at("op") == "store" || e.at("op") == "plain_store"));
      CHECK_FALSE(e.contains("src"));  // no cache answered the store yet: its drain reaches memory
      buffer.emplace_back(hex_address(e.at("addr")), e.at("val"));
      ++buffered;
    } else if (e.at("op") == "drain") {
      REQUIRE_FALSE(buffer.empty());
      CHECK(buffer.front() == std::make_pair(hex_address(e.at("addr")), e.at("val").get<std::uint64_t>()));
      buffer.pop_front();
    }
  }
  CHECK(buffered > 0);
  for (const auto& [th, buffer] : buffers) {
    INFO("thread " << th);
    CHECK(buffer.empty());  // the end of an execution drains every buffer
  }
}

TEST_CASE("sequentially consistent runs buffer no store", "[trace]") {
  const TracedRun run = traced_run(library_scenario("litmus/sb-sc.yaml"));
  for (const json& e : run.events) CHECK_FALSE(e.contains("buf"));
}

namespace {

using Sim = sim::SimPlatform;

// Three threads take Drepper's mutex3 three times each to increment a counter: contention
// makes them wait in the futex table, so its buckets' locks and queues write notes too.
struct MutexCounter {
  std::optional<futex::FutexTable<Sim>> table;
  lockstep::testing::LambdaWorkload workload;

  explicit MutexCounter(std::vector<CpuId> cpus) {
    workload.on_setup = [this, cpus](sim::Engine& e) {
      table.emplace(futex::FutexConfig{}, futex::FutexMachine{e.shape().cpus(), e.shape().nodes(), 3});
      auto* mutex = make_on<Sim, usync::Mutex3<Sim>>(0, kCacheLineBytes, *table);
      auto* counter = make_on<Sim, Sim::Shared<std::uint64_t>>(0, kCacheLineBytes);
      for (const CpuId cpu : cpus)
        e.spawn("t", cpu, [mutex, counter] {
          for (int k = 0; k < 3; ++k) {
            mutex->lock();
            counter->store(counter->load() + 1);
            mutex->unlock();
          }
        });
    };
  }
};

// Runs execution `index` untraced and traced, with oracles made alike, and requires the two
// to be the same execution. Returns the trace.
std::string same_execution(sim::Engine& engine, sim::SimWorkload& w,
                           const std::function<std::unique_ptr<sim::Scheduler>()>& oracle, std::uint64_t index) {
  const auto untraced_oracle = oracle();
  const sim::ExecutionResult untraced = engine.run(w, *untraced_oracle, nullptr, index);
  sim::TraceRecorder trace;
  const auto traced_oracle = oracle();
  const sim::ExecutionResult traced = engine.run(w, *traced_oracle, &trace, index);
  CHECK(traced.steps == untraced.steps);
  CHECK(traced.memory_ops == untraced.memory_ops);
  CHECK(traced.virtual_time_ns == untraced.virtual_time_ns);
  CHECK(traced.schedule == untraced.schedule);
  CHECK(traced.violation.has_value() == untraced.violation.has_value());
  return trace.text();
}

}  // namespace

TEST_CASE("lock and futex notes change no step, schedule or virtual time", "[trace]") {
  std::string traces;
  SECTION("exploring under TSO on the flat machine") {
    sim::FlatCostModel costs{sim::FlatCosts{}};
    sim::Engine engine(sim::MachineShape{{0, 0, 0}}, costs, sim::EngineLimits{100'000, 4});
    MutexCounter w({0, 1, 2});
    for (std::uint64_t i = 0; i < 100; ++i)
      traces += same_execution(
          engine, w.workload, [] { return std::make_unique<model::RandomStrategy>(5); }, i);
  }
  SECTION("timed on nehalem-2s") {
    sim::machine::MemorySystem costs(sim::machine::make_preset("nehalem-2s"));
    sim::Engine engine(sim::MachineShape{costs.topology().node_of_cpu()}, costs);
    MutexCounter w({0, 4, 1});
    traces += same_execution(
        engine, w.workload, [] { return std::make_unique<sim::TimedStrategy>(3); }, 0);
  }
  // Not vacuous: the traced executions did write notes.
  CHECK(traces.find(R"("ev":"lock")") != std::string::npos);
  CHECK(traces.find(R"("ev":"futex")") != std::string::npos);
}
