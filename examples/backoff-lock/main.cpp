// A design checked and timed from outside lockstep's tree: this program registers its own
// workload kind, `backoff-counter` (backoff_counter.hpp), with lockstep's driver, then runs
// the scenario files it is given exactly as `lockstep check` would: a dfs search under the
// scenario's memory model, or a timed run on a modelled machine. It prints each row's verdict
// and figures; exit 0 when every row matched its `expect`, 1 when one did not, 2 for a bad
// scenario (its file, line and column).
#include <cstdio>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "backoff_counter.hpp"
#include "driver/runner.hpp"
#include "driver/workload_bindings.hpp"
#include "driver/workload_rows.hpp"
#include "sim/exec/sim_platform.hpp"
#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace {

using namespace lockstep;

example::BackoffCounterParams load(const scenario::yaml::Map& m, const scenario::MachineSpec& machine) {
  example::BackoffCounterParams p;
  p.threads = static_cast<int>(m.integer_or("threads", 1, 64, p.threads));
  p.iterations = static_cast<int>(m.integer_or("iterations", 1, 1'000'000, p.iterations));
  p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
  p.broken = m.boolean_or("broken", p.broken);
  return p;
}

// The scenario's half: its kind, keys, loader and properties.
scenario::WorkloadKindInfo backoff_counter_kind() {
  return {.name = "backoff-counter",
          .keys = {"threads", "iterations", "cpus", "broken"},
          .load = [](const scenario::yaml::Map& m, const scenario::MachineSpec& machine,
                     const scenario::DesignSpec&) -> std::any { return load(m, machine); },
          .properties = {std::string(property::mutual_exclusion), std::string(property::deadlock),
                         std::string(property::bound_exceeded)}};
}

// The driver's half: the workload on the simulator and on real threads.
driver::WorkloadBinding backoff_counter_binding() {
  using Params = example::BackoffCounterParams;
  return {.simulate = driver::simulate_row<example::BackoffCounter<sim::SimPlatform>, Params>,
          .native = driver::native_row<example::BackoffCounter<native::NativePlatform>, Params>};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENARIO.yaml...\n", argv[0]);
    return 2;
  }
  driver::register_workload(backoff_counter_kind(), backoff_counter_binding());
  bool all_matched = true;
  for (int i = 1; i < argc; ++i) {
    try {
      const scenario::ScenarioFile file = scenario::load_scenario_file(argv[i]);
      driver::RunOptions options;
      options.command = driver::Command::check;
      options.out_dir = "backoff-lock-out";
      const report::ScenarioReport report = driver::run_scenario_file(file, options);
      for (const report::RowReport& row : report.rows) {
        fmt::print("{}: {}{}{} ({} executions{}, expected {})\n", argv[i], row.result, row.property.empty() ? "" : ": ",
                   row.property, row.executions, row.exhaustive ? ", exhaustive" : "", row.expected);
        if (!row.message.empty()) fmt::print("  {}\n", row.message);
        for (const auto& [name, value] : row.workload.values) fmt::print("  {} = {:.4g}\n", name, value);
        all_matched = all_matched && row.matched;
      }
    } catch (const scenario::ScenarioError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  return all_matched ? 0 : 1;
}
