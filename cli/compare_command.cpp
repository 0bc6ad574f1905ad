#include "cli/compare_command.hpp"

#include <fmt/format.h>

#include "cli/compare_outputs.hpp"
#include "io/files.hpp"

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
  cmd->add_flag("--quiet,-q", c.quiet, "Print nothing but errors");
  return cmd;
}

int run_compare(const CompareCommand& c) {
  const driver::CompareReport report = driver::compare_scenario(c.file, c.options);
  if (!c.quiet) fmt::print("{}", compare_table(report));
  if (!c.json.empty()) io::write_file_atomically(c.json, compare_json(report));
  if (!c.csv.empty()) io::write_file_atomically(c.csv, compare_csv(report));
  if (!c.junit.empty()) io::write_file_atomically(c.junit, compare_junit(report));
  return report.passed() ? 0 : 1;
}

}  // namespace lockstep::cli
