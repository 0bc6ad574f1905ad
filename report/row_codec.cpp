#include "report/row_codec.hpp"

#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

// std::optional as null or the value (nlohmann 3.10 has no serializer of its own for it).
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v)
      j = *v;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace lockstep {

// Every field of every struct a RowReport holds: a field left out here would arrive empty at
// rank 0 (tests/cli/distributed_test.sh compares a sweep's JSON and CSV under 1, 2 and 4
// ranks, which catches it).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WorkloadMetrics, labels, values, per_thread_name, per_thread)

namespace profile {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LockProfileEntry, file, line, name, acquisitions, contended, hold_total_ns,
                                   hold_max_ns, wait_total_ns, wait_max_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LockProfile, entries)
}  // namespace profile

namespace report {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MachineMeasurements::Bin, lo_ns, hi_ns, count)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MachineMeasurements::CcbenchRow, cpu, distance, mean_ns, median_ns, min_ns, max_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MachineMeasurements, histogram, peaks_ns, mean_ns, c2c_cpus, c2c_ns, ccbench_test,
                                   ccbench, sources, writebacks, dram_banks_touched, dram_banks,
                                   dram_bank_peak_over_mean)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MachineProvenance, name, file, calibrated_host, calibrated_at, note)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LitmusState, state, count, violation, witness)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LitmusVerdict, memory_model, result, exhaustive, strategy, executions,
                                   internal_errors)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LitmusCondition, property, kind, text, observed, host, scenario)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LitmusReport, runs, elapsed_s, runs_per_s, max_runs, seconds, seed, max_skew,
                                   threads, host_cpus, host_arch, host_model, scenario_model, interrupted, stuck,
                                   watchdog_s, histogram, conditions, model_bugs, notes, hang_explained)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowReport::Counterexample, present, preemptions, steps, minimized,
                                   fewest_preemptions_proven, fewest_steps_proven, found_preemptions, found_steps,
                                   minimize_executions, minimize_steps, minimize_stopped)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowReport::Smt, present, memory_model, unroll, complete, events, queries, solver_s,
                                   witness_replayed, outcomes, outcomes_complete)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowReport::Parallel, tasks, split_on_demand, probes, idle_s, probe_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowReport::Estimate, present, probes, executions, half_width, strata, replays,
                                   elapsed_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RowReport, params, result, property, message, expected, matched, strategy, seed,
                                   executions, exhaustive, sim_ops, steps, virtual_time_ns, elapsed_s, trace_sha256,
                                   trace_path, chrome_trace_path, schedule_path, replay_command, sim_ops_per_host_s,
                                   pruned, max_depth, bounds, guarantee, executions_per_s, workers, ranks, remote_units,
                                   remote_progress_reports, remote_units_lent_back, parallel, estimate, internal_errors,
                                   counterexample, interleaving, protocol_steps, protocol_steps_verbose, machine,
                                   machine_source, workload, lock_profile, lock_profile_unmatched, litmus, smt)

std::string encode_row_report(const RowReport& row) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(nlohmann::json(row));
  return {bytes.begin(), bytes.end()};
}

RowReport decode_row_report(const std::string& bytes) {
  try {
    return nlohmann::json::from_msgpack(bytes).get<RowReport>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a row's report: malformed: ") + e.what());
  }
}

}  // namespace report
}  // namespace lockstep
