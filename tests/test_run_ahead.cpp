// Running ahead (docs/architecture.md, "Running ahead"): a timed thread's quiet hits run before
// other threads' earlier accesses where the machine model promises that none of those can
// reach them. The oracle is the engine without it: every result, trace and count must be the
// same, so each bundled scenario below runs both ways and the reports are compared whole (less
// host time). The lookahead is worked by hand from the presets' published figures.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "driver/runner.hpp"
#include "driver/simulation.hpp"
#include "report/result_json.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"
#include "sim/timed_strategy.hpp"
#include "spec/scenario.hpp"
#include "tests/differential/program_generator.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using namespace lockstep::sim::machine;

namespace {

// The report as JSON, less what depends on the host (time, speed) or on the file's name.
nlohmann::ordered_json comparable(report::ScenarioReport report) {
  report.scenario.clear();
  for (report::RowReport& row : report.rows) {
    row.elapsed_s = 0;
    row.sim_ops_per_host_s = 0;
    row.trace_path.clear();
    row.chrome_trace_path.clear();
  }
  return report::to_json(report);
}

report::ScenarioReport run_file(scenario::ScenarioFile file, bool run_ahead) {
  for (scenario::Scenario& row : file.rows) row.strategy.run_ahead = run_ahead;
  driver::RunOptions options;
  options.command = driver::Command::run;
  options.out_dir = (testing::scratch_dir() / "run-ahead").string();
  return driver::run_scenario_file(file, options);
}

// One execution of a scenario's first row on an engine built as `lockstep run` builds it.
ExecutionResult execute(const scenario::Scenario& s, bool run_ahead) {
  const auto costs = driver::make_costs(s);
  EngineLimits limits = driver::engine_limits(s);
  limits.run_ahead = run_ahead;
  Engine engine(driver::machine_shape(s), *costs, limits);
  const auto workload = driver::make_workload(s);
  TimedStrategy timed(s.strategy.seed);
  return engine.run(*workload, timed, nullptr, 0);
}

std::string bundled(const std::string& name) { return std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/" + name; }

// A generated program (program_generator.hpp: each thread's ops under "    program:", indented
// six spaces or more) with every thread's ops repeated `times` times in a loop, so that its
// lines are hit again from the threads' own caches.
std::string looped(const std::string& program, int times) {
  std::istringstream in(program);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("      ", 0) == 0) {
      out += "    " + line + "\n";
      continue;
    }
    out += line + "\n";
    if (line == "    program:")
      out += "      - loop:\n          times: " + std::to_string(times) + "\n          body:\n";
  }
  return out;
}

}  // namespace

TEST_CASE("the lookahead is the least time in which one core's access reaches another's copy", "[machine][run_ahead]") {
  // barcelona-8s: a transfer within a die 2/3 of 100 ns, an invalidation there half the L3
  // hit (21.5 / 2), a crossing the uncore and one HT hop (25 + 19), a line from memory half
  // its miss ((25 + 60 - 15) / 2): the invalidation is the least, 10.75, so 10 whole ns.
  CHECK(MemorySystem(make_preset("barcelona-8s")).lookahead_ns() == 10);
  // An inclusive last level evicts from its cores at once, and SMT siblings share an L1.
  CHECK(MemorySystem(make_preset("nehalem-2s")).lookahead_ns() == 0);
  MachineConfig smt = make_preset("barcelona-8s");
  smt.threads_per_core = 2;
  CHECK(MemorySystem(smt).lookahead_ns() == 0);
  // The flat machine has no coherence in time: an access is seen at once.
  FlatCostModel flat{FlatCosts{}};
  CHECK(flat.lookahead_ns() == 0);
  CHECK(flat.quiet_hit_ns(0, 0x1000, OpKind::load, 0) == CostModel::kNotQuiet);
}

TEST_CASE("a quiet hit is an L1 hit that changes nothing another core sees", "[machine][run_ahead]") {
  const MachineConfig config = make_preset("barcelona-8s");  // CPU n is core n; 0 and 1 share a die
  MemorySystem memory(config);
  const std::uint64_t a = 0x40000;
  const std::uint64_t b = 0x80000;
  memory.access_ns(Access{OpKind::store, 0, a, 8, 0, 0});    // core 0 holds a Modified
  memory.access_ns(Access{OpKind::load, 0, b, 8, 1000, 0});  // and b Exclusive (from memory)
  const auto l1_hits = [&] { return memory.source_counts()[static_cast<std::size_t>(Source::l1)]; };
  const std::uint64_t before = l1_hits();
  const std::uint64_t load = memory.quiet_hit_ns(0, a, OpKind::load, 2000);
  REQUIRE(load != CostModel::kNotQuiet);
  CHECK(static_cast<double>(load) == Approx(config.caches.front().hit_ns).margin(1));  // the carried fraction
  CHECK(l1_hits() == before + 1);
  CHECK(memory.quiet_hit_ns(0, b, OpKind::load, 2001) != CostModel::kNotQuiet);
  // Writes never: reads of a Modified line that start earlier but are made later would
  // leave the copy Owned (an upgrade); a locked instruction's hold would delay them.
  CHECK(memory.quiet_hit_ns(0, a, OpKind::store, 2002) == CostModel::kNotQuiet);
  CHECK(memory.quiet_hit_ns(0, a, OpKind::plain_store, 2002) == CostModel::kNotQuiet);
  CHECK(memory.quiet_hit_ns(0, a, OpKind::rmw, 2002) == CostModel::kNotQuiet);
  // Another core's copy, or no copy: a message.
  CHECK(memory.quiet_hit_ns(1, a, OpKind::load, 2003) == CostModel::kNotQuiet);
  CHECK(l1_hits() == before + 2);                            // the refusals counted nothing
  memory.access_ns(Access{OpKind::load, 1, a, 8, 3000, 0});  // core 1 reads a: core 0's copy is Owned
  CHECK(memory.quiet_hit_ns(0, a, OpKind::load, 4000) != CostModel::kNotQuiet);
  CHECK(memory.quiet_hit_ns(1, a, OpKind::load, 4000) != CostModel::kNotQuiet);
}

TEST_CASE("TTAS under contention runs the same with and without running ahead", "[engine][run_ahead]") {
  // opteron-6172-4s (locked_ns 0): when writes could run ahead, a holder's exchange on its
  // own Modified line ran before three spinners' reads that started 1 ns earlier, hit its L1
  // where the queued order pays an upgrade, and the run took 5198 steps against 4622 (found by
  // the check over every bundled scenario, in lock-sweep). Only reads run ahead now.
  const std::string yaml =
      "name: ttas\n"
      "machine: {preset: opteron-6172-4s}\n"
      "design: {spinlock: ttas}\n"
      "workload: {kind: lock-counter, threads: 4, iterations: 100, cs_work: 100}\n"
      "strategy: {kind: timed, seed: 1}\n"
      "expect: pass\n";
  const std::filesystem::path file = testing::scratch_dir() / "run-ahead-ttas.yaml";
  std::ofstream(file) << yaml;
  const scenario::Scenario s = scenario::load_scenario_file(file.string()).rows.front();
  const ExecutionResult ahead = execute(s, true);
  const ExecutionResult queued = execute(s, false);
  CHECK(ahead.steps == queued.steps);
  CHECK(ahead.virtual_time_ns == queued.virtual_time_ns);
}

TEST_CASE("a copy that leaves before a quiet hit it served is a simulator bug, caught", "[machine][run_ahead]") {
  MemorySystem memory(make_preset("barcelona-8s"));
  const std::uint64_t a = 0x40000;
  memory.access_ns(Access{OpKind::store, 0, a, 8, 0, 0});
  // Core 0 hits a at 100 us; core 1's store from 1 us takes core 0's copy about 67 ns later.
  // The engine never lets a thread so far ahead; the model refuses the order it would imply.
  REQUIRE(memory.quiet_hit_ns(0, a, OpKind::load, 100'000) != CostModel::kNotQuiet);
  CHECK_THROWS_WITH(memory.access_ns(Access{OpKind::store, 1, a, 8, 1000, 0}),
                    Catch::Contains("lookahead") && Catch::Contains("simulator bug"));
}

TEST_CASE("running ahead changes no result, trace or count", "[engine][run_ahead]") {
  // sim-speed: 32 threads on barcelona-8s, most accesses hits (it runs ahead); a c2c matrix
  // and a cache-aware placement on the same machine; file I/O costs; and a flat machine,
  // which never runs ahead.
  for (const char* name : {"bench/sim-speed.yaml", "machine/barcelona-8s-c2c.yaml", "os/placement-cache.yaml",
                           "fileio/cost-disjoint.yaml", "basics/counter-timed.yaml"}) {
    INFO(name);
    const scenario::ScenarioFile file = scenario::load_scenario_file(bundled(name));
    CHECK(comparable(run_file(file, true)) == comparable(run_file(file, false)));
  }
  const scenario::Scenario s = scenario::load_scenario_file(bundled("bench/sim-speed.yaml")).rows.front();
  const ExecutionResult ahead = execute(s, true);
  const ExecutionResult queued = execute(s, false);
  CHECK(ahead.virtual_time_ns == queued.virtual_time_ns);
  CHECK(ahead.steps == queued.steps);
  CHECK(ahead.memory_ops == queued.memory_ops);
  CHECK(queued.ran_ahead == 0);
  // About a sixth of its accesses run ahead of an earlier thread (54,381 of 293,894).
  CHECK(ahead.ran_ahead * 6 > ahead.memory_ops);
}

TEST_CASE("random thread programs run the same with and without running ahead", "[engine][run_ahead]") {
  // The differential tests' generator (loads, stores, read-modify-writes of every order,
  // branches on what was read), each thread's ops in a loop of 50, under SC and x86-TSO on the two kinds of
  // machine that run ahead (barcelona-8s: probes broadcast; opteron-6172-4s: a probe filter,
  // no locked_ns), each thread on its own core. Steps, virtual time and operations must agree.
  difftest::GeneratorShape shape;
  shape.max_ops = 12;
  std::uint64_t ran_ahead = 0;
  int runs = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::string program = looped(difftest::generate_program(seed, shape), 50);
    for (const char* machine : {"barcelona-8s", "opteron-6172-4s"}) {
      for (const char* model : {"sc", "tso"}) {
        INFO("program " << seed << " on " << machine << " under " << model);
        const std::filesystem::path file = testing::scratch_dir() / "run-ahead-program.yaml";
        std::ofstream(file) << "name: p\nmachine: {preset: " << machine << "}\nmemory_model: " << model << "\n"
                            << program << "strategy: {kind: timed, seed: " << seed << "}\nexpect: pass\n";
        const scenario::Scenario s = scenario::load_scenario_file(file.string()).rows.front();
        const ExecutionResult ahead = execute(s, true);
        const ExecutionResult queued = execute(s, false);
        CHECK(ahead.steps == queued.steps);
        CHECK(ahead.memory_ops == queued.memory_ops);
        CHECK(ahead.virtual_time_ns == queued.virtual_time_ns);
        CHECK(ahead.violation.has_value() == queued.violation.has_value());
        ran_ahead += ahead.ran_ahead;
        ++runs;
      }
    }
  }
  INFO(runs << " runs, " << ran_ahead << " accesses run ahead");
  CHECK(ran_ahead > 0);  // the comparison is not empty: 310 accesses ran ahead when written
}
