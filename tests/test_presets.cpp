// The preset machines (sim/machine/presets.cpp) and how scenarios choose and override them
// (spec/machine_loader.cpp): the facts of docs/sources.md section 4 as numbers, overrides
// landing in the right fields, and mistakes reported at their file:line:col.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "scenario_fixtures.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"
#include "spec/scenario.hpp"

using namespace lockstep;
using namespace lockstep::scenario;
using namespace lockstep::testing;
using namespace lockstep::sim::machine;

namespace {

const CacheLevel& cache(const MachineConfig& c, const std::string& name) {
  const auto it = std::find_if(c.caches.begin(), c.caches.end(), [&](const CacheLevel& l) { return l.name == name; });
  REQUIRE(it != c.caches.end());
  return *it;
}

}  // namespace

TEST_CASE("the presets hold docs/sources.md's facts", "[machine]") {
  const MachineConfig n = make_preset("nehalem-2s");
  CHECK(n.packages == 2);
  CHECK(n.cores_per_package == 4);
  CHECK(n.threads_per_core == 2);
  CHECK(n.coherence == Coherence::home_snoop);
  CHECK(n.inclusive_llc);
  CHECK(cache(n, "L1").size_bytes == 32 * 1024);
  CHECK(cache(n, "L2").size_bytes == 256 * 1024);
  CHECK(cache(n, "L3").size_bytes == 8 * 1024 * 1024);
  CHECK(cache(n, "L3").scope == CacheScope::package);
  REQUIRE(n.links.size() == 1);
  CHECK(n.links[0].bandwidth_bytes_per_ns == Approx(12.8));  // QPI 6.4 GT/s
  CHECK(n.store_buffer_entries == 32);
  // First values: local DRAM is uncore + DRAM (the seed's 85 ns), remote adds a request and a
  // data message over QPI (the seed's 135 ns).
  const double local = n.uncore_ns + n.dram.latency_ns;
  const double remote =
      local + 2 * n.links[0].latency_ns + (n.request_bytes + n.data_bytes) / n.links[0].bandwidth_bytes_per_ns;
  CHECK(local == Approx(85).margin(5));
  CHECK(remote == Approx(135).margin(5));

  const MachineConfig b = make_preset("barcelona-4s");
  CHECK(b.packages == 4);
  CHECK(b.cores_per_package == 4);
  CHECK(b.threads_per_core == 1);
  CHECK(b.coherence == Coherence::broadcast);
  CHECK_FALSE(b.probe_filter);
  CHECK_FALSE(b.inclusive_llc);
  CHECK(cache(b, "L1").size_bytes == 64 * 1024);
  CHECK(cache(b, "L1").ways == 2);
  CHECK(cache(b, "L2").size_bytes == 512 * 1024);
  CHECK(cache(b, "L3").size_bytes == 2 * 1024 * 1024);
  CHECK(cache(b, "L3").ways == 32);

  const MachineConfig e = make_preset("barcelona-8s");
  CHECK(e.boards == 2);
  CHECK(e.packages == 8);
  CHECK(e.board_of_package == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});

  const MachineConfig x = make_preset("xeon-e7-16s");
  CHECK(x.cpus() >= 512);
  CHECK(x.packages >= 8);
}

TEST_CASE("lockstep list shows flat and every preset", "[machine]") {
  std::vector<std::string> expected{"flat"};
  for (const std::string& name : preset_names()) expected.push_back(name);
  CHECK(machine_presets() == expected);
  CHECK(std::find(expected.begin(), expected.end(), "barcelona-8s") != expected.end());
  CHECK(std::find(expected.begin(), expected.end(), "host") != expected.end());
}

TEST_CASE("a modelled machine: overrides land in the model, the OS costs and the CPU map", "[machine]") {
  const Scenario s = load_one("good/machine_nehalem.yaml");
  const MachineSpec& m = s.machine;
  CHECK(m.preset == "nehalem-2s");
  REQUIRE(m.model.has_value());
  const MachineConfig& c = *m.model;
  CHECK(c.uncore_ns == 12.5);
  CHECK(c.c2c_same_package_ns == 30);
  CHECK(c.remote_cache_ns == 9);
  CHECK(c.probe_ns == 4.5);
  CHECK(c.request_bytes == 8);
  CHECK(c.data_bytes == 72);
  CHECK(c.store_buffer_entries == 16);
  CHECK(c.probe_filter);
  CHECK_FALSE(c.inclusive_llc);
  CHECK(c.coherence == Coherence::broadcast);
  CHECK(c.dram.latency_ns == 65.5);
  CHECK(c.dram.open_row_saving_ns == 10);
  CHECK(c.dram.row_bytes == 4096);
  CHECK(c.dram.banks == 8);
  CHECK(c.dram.refresh_interval_ns == 3900);
  CHECK(c.dram.refresh_busy_ns == 200);
  CHECK(cache(c, "L1").size_bytes == 65536);
  CHECK(cache(c, "L1").ways == 8);
  CHECK(cache(c, "L1").hit_ns == 1.25);
  CHECK(cache(c, "L2").hit_ns == make_preset("nehalem-2s").caches[1].hit_ns);  // untouched
  CHECK(cache(c, "L3").hit_ns == 14);
  CHECK(cache(c, "L3").replacement == Replacement::plru);
  for (const Link& l : c.links) {
    CHECK(l.latency_ns == 25);
    CHECK(l.bandwidth_bytes_per_ns == 6.4);
  }
  CHECK(c.os.rmw_ns == 9);
  CHECK(c.os.context_switch_ns == 2500);
  CHECK(m.costs.rmw_ns == 9);  // costs mirror the model's OS costs
  CHECK(m.costs.context_switch_ns == 2500);
  CHECK(m.costs.wake_ns == c.os.wake_ns);
  CHECK(m.node_of_cpu == Topology(c).node_of_cpu());
  CHECK(m.cpus() == 16);
  CHECK(s.workload.get<LockCounterParams>().cpus == 16);  // a workload's default is the machine's CPUs
}

TEST_CASE("board_links override the links between boards, after links", "[machine]") {
  const MachineSpec m = load_one("good/machine_board_links.yaml").machine;
  REQUIRE(m.model.has_value());
  int between = 0;
  for (const Link& l : m.model->links) {
    const bool crosses = m.model->board_of_package[static_cast<std::size_t>(l.a)] !=
                         m.model->board_of_package[static_cast<std::size_t>(l.b)];
    between += crosses ? 1 : 0;
    CHECK(l.latency_ns == (crosses ? 30 : 12));
    CHECK(l.bandwidth_bytes_per_ns == (crosses ? 1.6 : 4));
  }
  CHECK(between == 2);
  CHECK(m.cpus() == 32);
  CHECK(m.node_of_cpu[31] == 7);
}

TEST_CASE("a sweep over presets and a model field", "[machine]") {
  const ScenarioFile file = load_scenario_file(fixture("good/machine_sweep.yaml"));
  REQUIRE(file.rows.size() == 8);
  const int cpus[] = {16, 16, 32, 512};
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    const MachineSpec& m = file.rows[i].machine;
    INFO(m.preset);
    REQUIRE(m.model.has_value());
    CHECK(m.cpus() == cpus[i / 2]);
    CHECK(m.model->uncore_ns == (i % 2 == 0 ? 10 : 12.5));
  }
}

TEST_CASE("the host preset loads from this machine's /sys", "[machine]") {
  // Written here rather than as a fixture: `host` differs from machine to machine.
  const MachineConfig host = make_preset("host");
  CHECK(host.name == "host");
  CHECK(host.cpus() == Topology(host).cpus());
}

TEST_CASE("bad machine sections fail at the line and column of the mistake", "[machine]") {
  check_bad_cases({
      {"machine_unknown_override.yaml", 2, 31,
       "unknown key 'uncore' in machine (expected one of: preset, file, name, memory_policy, packages, "
       "cores_per_package, threads_per_core, cpus, nodes, uncore_ns,"},
      {"machine_cpus_on_model.yaml", 4, 3, "cpus applies to the flat preset only: barcelona-4s has 16 CPUs in 4 nodes"},
      {"machine_bad_cache.yaml", 6, 5, "caches: barcelona-4s has no cache 'LLC' (it has L1, L2, L3)"},
      {"machine_model_key_on_flat.yaml", 2, 34, "dram applies to modelled machines, not to the flat preset"},
      {"machine_board_links.yaml", 2, 44, "board_links: nehalem-2s has no links between boards"},
      {"machine_real.yaml", 4, 22, "latency_ns: expected a number, got '6O'"},
      {"machine_negative.yaml", 2, 44, "uncore_ns: -1.5 is out of range (0..1000000000)"},
      {"machine_sets.yaml", 4, 29,
       "caches.L3: 3145728 bytes in 16 ways of 64-byte lines do not make a power-of-two number of sets"},
      {"machine_row_saving.yaml", 4, 30, "dram: open_row_saving_ns (80) exceeds latency_ns (70)"},
      {"machine_bool.yaml", 2, 47, "probe_filter: expected true or false, got 'yes'"},
      {"machine_c2c_legs.yaml", 4, 37,
       "c2c_legs: request (0.5) and forward (0.6) add up to more than the whole transfer"},
      {"machine_locked_before_line.yaml", 4, 23, "locked_before_line: 1.5 is out of range (0..1)"},
      {"machine_swept_cpus.yaml", 5, 9, "cpus applies to the flat preset only: nehalem-2s has 16 CPUs in 2 nodes"},
  });
}
