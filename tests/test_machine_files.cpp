// Machine files (`machine: {file: F}`), the caches list and shape keys, and `preset: host`
// with and without this host's stored calibration (spec/host_calibration.hpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.hpp"
#include "spec/host_calibration.hpp"
#include "spec/machine_loader.hpp"
#include "spec/scenario.hpp"

namespace {

namespace fs = std::filesystem;
using namespace lockstep;
using lockstep::scenario::ScenarioError;

fs::path write(const std::string& name, const std::string& text) {
  const fs::path dir = testing::scratch_dir() / "machine_files";
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const fs::path& path) {
  try {
    scenario::load_scenario_file(path.string());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded without error)";
}

// A calibration of a two-core, one-package host with one L3 (numbers unlike any preset's).
std::string machine_file(const std::string& host, const std::string& cpu, int cpus) {
  return "calibration:\n  host: " + host + "\n  cpu: " + cpu + "\n  cpus: " + std::to_string(cpus) +
         "\n  when: 2026-12-02T10:00:00Z\n  clock: tsc 2.0 GHz\n  sources: {caches.L1.hit_ns: memory probe at 16 KiB}\n"
         "machine:\n  name: testhost\n  preset: nehalem-2s\n  packages: 1\n  cores_per_package: 2\n  "
         "threads_per_core: 1\n  caches:\n"
         "    - {name: L1, size_bytes: 49152, ways: 12, hit_ns: 1.25, scope: core}\n"
         "    - {name: L2, size_bytes: 1048576, ways: 16, hit_ns: 4.5, scope: core}\n"
         "    - {name: L3, size_bytes: 33554432, ways: 16, hit_ns: 12.5, scope: package}\n"
         "  dram: {latency_ns: 77}\n  c2c_same_package_ns: 41\n  wake_ns: 5100\n";
}

std::string scenario_on(const std::string& machine) {
  return "name: on a machine file\nmachine: " + machine +
         "\nworkload: {kind: latency-probe, bytes: 128MiB, cpu: 0, samples: 100}\nstrategy: {kind: timed, seed: 1}\n"
         "expect: pass\n";
}

struct CalibrationDir {
  explicit CalibrationDir(const fs::path& dir) { setenv("LOCKSTEP_CALIBRATION_DIR", dir.c_str(), 1); }
  ~CalibrationDir() { unsetenv("LOCKSTEP_CALIBRATION_DIR"); }
  CalibrationDir(const CalibrationDir&) = delete;
  CalibrationDir& operator=(const CalibrationDir&) = delete;
};

}  // namespace

TEST_CASE("a machine file describes a whole machine, and a scenario overrides it", "[scenario][machine_file]") {
  write("m.yaml", machine_file("testhost", "Test CPU", 2));
  const fs::path s = write("s.yaml", scenario_on("{file: m.yaml, dram: {latency_ns: 70}}"));
  const scenario::ScenarioFile file = scenario::load_scenario_file(s.string());
  const scenario::MachineSpec& m = file.rows.front().machine;
  REQUIRE(m.model);
  CHECK(m.model->name == "testhost");
  CHECK(m.model->packages == 1);
  CHECK(m.model->cores_per_package == 2);
  CHECK(m.model->threads_per_core == 1);
  CHECK(m.model->links.empty());  // one package: nothing to link
  CHECK(m.cpus() == 2);
  REQUIRE(m.model->caches.size() == 3);
  CHECK(m.model->caches[0].size_bytes == 49152);
  CHECK(m.model->caches[0].ways == 12);
  CHECK(m.model->caches[0].hit_ns == 1.25);
  CHECK(m.model->caches[2].scope == sim::machine::CacheScope::package);
  CHECK(m.model->dram.latency_ns == 70);  // the scenario's override wins
  CHECK(m.model->c2c_same_package_ns == 41);
  CHECK(m.costs.wake_ns == 5100);
  CHECK(m.model->smt_work_factor == 1.0);  // no SMT sibling
  REQUIRE(m.calibration);
  CHECK(m.calibration->host == "testhost");
  CHECK(m.calibration->when == "2026-12-02T10:00:00Z");
  CHECK(m.calibration->sources.size() == 1);
}

TEST_CASE("a new package count links every pair of packages", "[scenario][machine_file]") {
  const fs::path s = write("s4.yaml", scenario_on("{preset: nehalem-2s, packages: 4}"));
  const scenario::MachineSpec m = scenario::load_scenario_file(s.string()).rows.front().machine;
  REQUIRE(m.model);
  CHECK(m.model->packages == 4);
  CHECK(m.model->links.size() == 6);
  CHECK(m.cpus() == 4 * 4 * 2);
  CHECK(m.node_of_cpu.back() == 3);
}

TEST_CASE("machine file mistakes are errors at their place", "[scenario][machine_file]") {
  write("m.yaml", machine_file("testhost", "Test CPU", 2));
  CHECK_THAT(error_of(write("both.yaml", scenario_on("{preset: nehalem-2s, file: m.yaml}"))),
             Catch::Contains("give a preset or a file, not both"));
  CHECK_THAT(error_of(write("missing.yaml", scenario_on("{file: nowhere.yaml}"))),
             Catch::Contains("missing.yaml:2:17: machine file:") && Catch::Contains("nowhere.yaml"));
  write("nested.yaml", "machine: {file: m.yaml}\n");
  CHECK_THAT(error_of(write("s-nested.yaml", scenario_on("{file: nested.yaml}"))),
             Catch::Contains("cannot name another machine file"));
  write("host-based.yaml", "machine: {preset: host}\n");
  CHECK_THAT(error_of(write("s-host.yaml", scenario_on("{file: host-based.yaml}"))), Catch::Contains("not from host"));
  write("shared-l1.yaml",
        "machine:\n  preset: nehalem-2s\n  caches:\n    - {name: L1, size_bytes: 32768, ways: 8, hit_ns: 1, scope: "
        "package}\n");
  const std::string shared = error_of(write("s-shared.yaml", scenario_on("{file: shared-l1.yaml}")));
  CHECK_THAT(shared, Catch::StartsWith((testing::scratch_dir() / "machine_files/shared-l1.yaml").string() + ":4:"));
  CHECK_THAT(shared, Catch::Contains("private L1"));
  write("no-ways.yaml",
        "machine:\n  preset: nehalem-2s\n  caches:\n    - {name: L1, size_bytes: 32768, hit_ns: 1, "
        "scope: core}\n");
  CHECK_THAT(error_of(write("s-no-ways.yaml", scenario_on("{file: no-ways.yaml}"))), Catch::Contains("ways"));
  write("flat.yaml", "machine: {preset: flat, cpus: 4}\n");
  CHECK_THAT(error_of(write("s-flat.yaml", scenario_on("{file: flat.yaml}"))), Catch::Contains("modelled machine"));
  CHECK_THAT(error_of(write("s-shape-flat.yaml", scenario_on("{preset: flat, packages: 2}"))),
             Catch::Contains("packages applies to modelled machines"));
}

TEST_CASE("preset host uses this host's calibration only when it measured this host", "[scenario][machine_file]") {
  const fs::path dir = testing::scratch_dir() / "calibrations";
  fs::create_directories(dir);
  const CalibrationDir env(dir);
  const scenario::HostIdentity host = scenario::this_host();
  const fs::path stored = scenario::host_calibration_path(host);
  CHECK(stored.parent_path() == dir);
  const fs::path s = write("s-preset-host.yaml", scenario_on("{preset: host}"));

  fs::remove(stored);
  scenario::MachineSpec m = scenario::load_scenario_file(s.string()).rows.front().machine;
  CHECK_FALSE(m.calibration);
  CHECK_THAT(m.calibration_note,
             Catch::Contains("no calibration of this host") && Catch::Contains("lockstep calibrate"));

  std::ofstream(stored) << machine_file(host.host, host.cpu, host.cpus);
  m = scenario::load_scenario_file(s.string()).rows.front().machine;
  REQUIRE(m.calibration);
  CHECK(m.calibration->file == stored.string());
  CHECK(m.model->c2c_same_package_ns == 41);
  CHECK(m.calibration_note.empty());

  std::ofstream(stored) << machine_file(host.host, host.cpu, host.cpus + 1);
  m = scenario::load_scenario_file(s.string()).rows.front().machine;
  CHECK_FALSE(m.calibration);
  CHECK_THAT(m.calibration_note, Catch::Contains("CPUs online"));

  std::ofstream(stored) << "machine: [not, a, map]\n";
  CHECK_THAT(error_of(s), Catch::Contains(stored.string()));
  fs::remove(stored);
}

TEST_CASE("expect.fidelity takes a tolerance per figure", "[scenario][fidelity]") {
  const auto on = [](const std::string& expect) {
    return "name: fidelity\nmachine: {preset: nehalem-2s}\ndesign: {futex: baseline}\n"
           "workload: {kind: futex-hash, runtime_us: 10}\n"
           "expect: " +
           expect + "\n";
  };
  const scenario::ScenarioFile file =
      scenario::load_scenario_file(write("f.yaml", on("{fidelity: {ops_per_s: 15, ratios: 20}}")).string());
  const scenario::Expectation& e = file.rows.front().expect;
  CHECK(e.kind == scenario::Expectation::Kind::pass);
  REQUIRE(e.fidelity.size() == 2);
  CHECK(e.fidelity[0].metric == "ops_per_s");
  CHECK(e.fidelity[0].percent == 15);
  CHECK_THAT(e.fidelity[1].where, Catch::EndsWith("f.yaml:5:36"));
  CHECK_THAT(error_of(write("f2.yaml", on("{fidelity: {ops_per_s: -1}}"))), Catch::Contains("f2.yaml:5:32"));
  CHECK_THAT(error_of(write("f3.yaml", on("{fidelity: {}}"))), Catch::Contains("at least one metric"));
  CHECK_THAT(error_of(write("f4.yaml", on("{fidelity: {a: 1, a: 2}}"))), Catch::Contains("twice"));
}
