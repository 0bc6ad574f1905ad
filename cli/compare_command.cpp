#include "cli/compare_command.hpp"

#include <fmt/format.h>

#include "cli/compare_outputs.hpp"
#include "cli/lock_profile_output.hpp"
#include "io/files.hpp"
#include "report/lock_profile_json.hpp"

namespace lockstep::cli {

CLI::App* add_compare(CLI::App& app, CompareCommand& c) {
  CLI::App* cmd = app.add_subcommand(
      "compare", "Run a scenario's workload natively and simulated on this host's model; print the error per figure");
  cmd->add_option("file", c.file, "Scenario file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--repetitions,-n", c.options.repetitions, "Native runs per row (the median is compared)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--machine", c.options.machine_file,
                  "Simulate on this machine file instead of `preset: host` (this host's last calibration)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--sim-runtime-us", c.options.sim_runtime_cap_us,
                  "Simulate a timed workload's window for at most this long (0: the scenario's)")
      ->capture_default_str();
  cmd->add_option("--native-runtime-us", c.options.native_runtime_floor_us,
                  "Run a timed workload natively for at least this long (0: the scenario's window)")
      ->capture_default_str();
  cmd->add_option("--probe-seconds", c.options.probe_seconds,
                  "latency-probe and c2c: each native probe's time, per repetition")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 600.0));
  cmd->add_option("--seed", c.options.seed, "Seed of the simulation (overrides the scenario's)");
  cmd->add_option("--json", c.json, "Write the comparison as JSON here (docs/results.md)");
  cmd->add_option("--csv", c.csv, "Write one CSV line per figure here");
  cmd->add_option("--junit", c.junit, "Write a JUnit XML report here (a testcase per figure)");
  cmd->add_option("--lock-profile", c.lock_profile,
                  "Profile every lock on both sides (natively in one extra run) and write both tables here: CSV, "
                  "or JSON for a name ending in .json (docs/os.md)");
  cmd->add_flag("--quiet,-q", c.quiet, "Print nothing but errors");
  return cmd;
}

namespace {

// The comparison's lock profiles as the two scenario reports the lock profile writers take:
// the simulated side's rows, then the native side's.
std::vector<report::ScenarioReport> lock_profile_sides(const driver::CompareReport& report) {
  std::vector<report::ScenarioReport> sides(2);
  for (std::size_t side = 0; side < 2; ++side) {
    report::ScenarioReport& s = sides[side];
    s.scenario = report.scenario;
    s.name = report.name;
    s.command = "compare";
    s.platform = side == 0 ? "sim" : "native";
    s.swept = report.swept;
    for (const driver::CompareRow& row : report.rows) {
      report::RowReport& r = s.rows.emplace_back();
      r.params = row.params;
      r.lock_profile = side == 0 ? row.simulated_locks : row.native_locks;
    }
  }
  return sides;
}

}  // namespace

int run_compare(CompareCommand c) {
  c.options.lock_profile = !c.lock_profile.empty();
  const driver::CompareReport report = driver::compare_scenario(c.file, c.options);
  if (!c.quiet) fmt::print("{}", compare_table(report));
  if (c.options.lock_profile) {
    const std::vector<report::ScenarioReport> sides = lock_profile_sides(report);
    if (!c.quiet) {
      for (std::size_t i = 0; i < report.rows.size(); ++i) {
        std::string params;
        for (const auto& [path, value] : report.rows[i].params) params += fmt::format(" {}={}", path, value);
        fmt::print("{}{}:\n{}{}", report.name, params,
                   lock_profile_table(sides[0].rows[i].lock_profile, "simulated, virtual time", 5),
                   lock_profile_table(sides[1].rows[i].lock_profile, "native, host clock", 5));
      }
    }
    io::write_file_atomically(
        c.lock_profile, c.lock_profile.ends_with(".json") ? lock_profile_file_json(sides) : lock_profile_csv(sides));
  }
  if (!c.json.empty()) io::write_file_atomically(c.json, compare_json(report));
  if (!c.csv.empty()) io::write_file_atomically(c.csv, compare_csv(report));
  if (!c.junit.empty()) io::write_file_atomically(c.junit, compare_junit(report));
  return report.passed() ? 0 : 1;
}

}  // namespace lockstep::cli
