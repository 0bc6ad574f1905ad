// One row of a scenario file, simulated: a timed run, an exploration (check), the c2c
// matrix, or the replay of a schedule file, each producing the row's report with its trace
// digest, counterexample schedule and trace files. The file-level functions in runner.hpp
// make one per row.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "driver/runner.hpp"
#include "driver/simulation.hpp"
#include "driver/trace_output.hpp"
#include "model/schedule_file.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/trace.hpp"

namespace lockstep::driver {

using report::RowReport;

// The per-row context: one engine (its arena reserved once), one cost model, one workload.
class RowRunner {
 public:
  using Clock = std::chrono::steady_clock;

  RowRunner(const ScenarioFile& file, const Scenario& scenario, std::size_t row, const RunOptions& options)
      : file_(file),
        s_(scenario),
        row_(row),
        options_(options),
        costs_(make_costs(scenario)),
        engine_(machine_shape(scenario), *costs_, engine_limits(scenario)),
        workload_(make_workload(scenario)) {}

  RowReport run(Command command);
  RowReport replay(const model::ScheduleFile& schedule);

 private:
  std::uint64_t seed() const { return options_.seed.value_or(s_.strategy.seed); }
  std::string stem() const;
  std::string trace_header(const std::string& strategy, std::uint64_t execution) const;
  RowReport explore(std::uint64_t executions);
  RowReport timed();
  RowReport c2c();
  RowReport ccbench();
  RowReport smt();  // driver/smt_row.cpp
  void finish(RowReport& report, sim::Scheduler& oracle, std::uint64_t execution,
              const std::optional<sim::Violation>& expected_violation);
  void write_schedule(RowReport& report, const sim::Schedule& schedule, sim::EngineMode mode, std::uint64_t execution,
                      const std::string& strategy);
  TraceOutput trace_output() const;
  void record_trace(RowReport& report, sim::TraceRecorder& trace, TraceOutput& output) const;
  // What a progress line says of this row besides its counters.
  ProgressSnapshot progress_base(std::string strategy) const;

  const ScenarioFile& file_;
  const Scenario& s_;
  std::size_t row_;
  const RunOptions& options_;
  std::unique_ptr<sim::CostModel> costs_;
  sim::Engine engine_;
  std::unique_ptr<sim::SimWorkload> workload_;
};

}  // namespace lockstep::driver
