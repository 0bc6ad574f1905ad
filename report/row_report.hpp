// What a command found, per scenario and per sweep row: the data behind the result JSON
// (docs/results.md), the JUnit report, the CSV of a sweep and the summary table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/workloads/metrics.hpp"
#include "profile/lock_profile.hpp"
#include "report/litmus_report.hpp"

namespace lockstep::report {

// What a machine workload measured (latency-probe, c2c); empty for the others.
struct MachineMeasurements {
  struct Bin {
    std::uint64_t lo_ns = 0;
    std::uint64_t hi_ns = 0;
    std::uint64_t count = 0;
  };
  std::vector<Bin> histogram;               // latency-probe: per-access latencies
  std::vector<double> peaks_ns;             // latency-probe: peak centres, tallest first
  double mean_ns = 0;                       // latency-probe: the mean latency per access
  std::vector<int> c2c_cpus;                // c2c: the CPUs measured
  std::vector<std::vector<double>> c2c_ns;  // c2c: one-way latency between c2c_cpus[i] and [j]
  // ccbench: the operation's latency from each measuring CPU, and how far it is from the
  // line's first holder ("same core", "same package", "1 hop", ...).
  struct CcbenchRow {
    int cpu = 0;
    std::string distance;
    double mean_ns = 0;
    double median_ns = 0;  // what `lockstep compare` holds: a native run's odd interrupt moves its mean
    double min_ns = 0;
    double max_ns = 0;
  };
  std::string ccbench_test;  // e.g. "cas on modified"
  std::vector<CcbenchRow> ccbench;
  std::vector<std::pair<std::string, std::uint64_t>> sources;  // which level answered how many accesses
  std::uint64_t writebacks = 0;                                // dirty lines written back to memory (with sources only)
  // DRAM bank balance (with sources, when DRAM was accessed): the banks that served an
  // access, of the nodes that served any, and the busiest bank's accesses over their mean.
  std::uint64_t dram_banks_touched = 0;
  std::uint64_t dram_banks = 0;
  double dram_bank_peak_over_mean = 0;
  bool empty() const { return histogram.empty() && c2c_ns.empty() && ccbench.empty(); }
};

// Where a modelled machine's numbers came from, when not only from a preset: a machine file,
// the host's calibration (which, when), or why `preset: host` is uncalibrated.
struct MachineProvenance {
  std::string name;             // the machine's name
  std::string file;             // machine file or calibration read
  std::string calibrated_host;  // the calibration's host ...
  std::string calibrated_at;    // ... and time (ISO 8601 UTC)
  std::string note;             // `preset: host` without a usable calibration: why
  bool empty() const { return file.empty() && note.empty(); }
};

struct RowReport {
  std::vector<std::pair<std::string, std::string>> params;  // sweep values of this row
  std::string result;    // "pass", "violation", "reachable" or "unreachable" (spec/outcome.hpp)
  std::string property;  // the violated property, the exists condition reached, or those not reached
  std::string message;   // what the violation, the witness or the search says
  std::string expected;  // "pass", or "violation: P", "reachable: N", "unreachable: N"
  bool matched = false;  // result agrees with expected
  std::string strategy;  // timed, random, replay
  std::uint64_t seed = 0;
  std::uint64_t executions = 0;
  bool exhaustive = false;            // true only when every execution within the bounds was covered
  std::uint64_t sim_ops = 0;          // visible operations simulated, over all executions
  std::uint64_t steps = 0;            // visible operations of the reported execution
  std::uint64_t virtual_time_ns = 0;  // of the reported execution
  double elapsed_s = 0;               // host time (never part of a trace)
  std::string trace_sha256;           // of the reported execution's trace bytes
  std::string trace_path;             // where the trace was written, if it was
  std::string chrome_trace_path;      // likewise for the Chrome trace-event JSON
  std::string schedule_path;          // on violation: the schedule file that replays it
  std::string replay_command;         // on violation: the exact command that replays it
  double sim_ops_per_host_s = 0;      // simulated operations per host second (all executions)
  // Exploration (check): the search's statistics.
  std::uint64_t pruned = 0;     // executions abandoned as redundant (dfs sleep sets)
  std::uint64_t max_depth = 0;  // most steps in one execution
  std::string bounds;           // what the search stayed within ("preemptions <= 2")
  std::string guarantee;        // pct: its probability bound
  double executions_per_s = 0;  // executions (pruned included) per host second
  unsigned workers = 1;
  unsigned ranks = 1;                         // MPI ranks the search ran on (docs/distributed.md)
  std::uint64_t remote_units = 0;             // work units the other ranks ran
  std::uint64_t remote_progress_reports = 0;  // what running remote units reported (checkpoints)
  std::uint64_t remote_units_lent_back = 0;   // subtrees of remote dfs units run here instead
  // A parallel dfs's own costs on this process (model::SearchOutcome::Parallel): tasks,
  // first-step probes, and the thread-seconds idle and probing. Zero for other searches.
  struct Parallel {
    std::uint64_t tasks = 0;
    std::uint64_t split_on_demand = 0;
    std::uint64_t probes = 0;
    double idle_s = 0;
    double probe_s = 0;
  } parallel;
  // dfs: the executions probes predicted before the search (model/search_estimate.hpp), with
  // the half-width of their 95% interval; `elapsed_s` is host time.
  struct Estimate {
    bool present = false;
    std::uint64_t probes = 0;
    double executions = 0;
    double half_width = 0;
    std::uint64_t strata = 0;
    std::uint64_t replays = 0;
    double elapsed_s = 0;
  } estimate;
  // States the search's algorithm says cannot be reached, met anyway (a checker bug): the
  // verdict is not to be trusted, and the command exits 3.
  std::uint64_t internal_errors = 0;
  // The reported counterexample: preemptions and how sure its minimality is.
  struct Counterexample {
    bool present = false;
    unsigned preemptions = 0;
    std::uint64_t steps = 0;
    bool minimized = false;  // minimization ran
    bool fewest_preemptions_proven = false;
    bool fewest_steps_proven = false;
    unsigned found_preemptions = 0;  // before minimization
    std::uint64_t found_steps = 0;
    std::uint64_t minimize_executions = 0;
    std::uint64_t minimize_steps = 0;
    std::string minimize_stopped;  // empty: ran to its end (model/minimize.hpp)
  } counterexample;
  std::vector<std::string> interleaving;  // the counterexample, one readable line per step
  // The same, grouped by the designs' protocol steps (trace/interleaving.hpp); the verbose
  // form lists each line's raw steps under it. Empty when no design marked a step.
  std::vector<std::string> protocol_steps;
  std::vector<std::string> protocol_steps_verbose;
  MachineMeasurements machine;
  MachineProvenance machine_source;
  WorkloadMetrics workload;  // what a measuring workload (futex-hash, ...) reported
  // --lock-profile: the row's locks, worst first (profile/lock_profile.hpp), and the notes no
  // ownership record explained (a lock that notes wrongly; 0 for every lock in core/).
  profile::LockProfile lock_profile;
  std::uint64_t lock_profile_unmatched = 0;
  std::optional<LitmusReport> litmus;  // a native run of thread programs (report/litmus_report.hpp)
  // The smt strategy's side (docs/results.md, "SMT results").
  struct Smt {
    bool present = false;
    std::string memory_model;
    unsigned unroll = 0;        // 0: every while loop's own bound
    bool complete = true;       // no while loop was cut by the unrolling
    std::uint64_t events = 0;   // in the encoding
    std::uint64_t queries = 0;  // satisfiability checks
    double solver_s = 0;
    bool witness_replayed = false;      // the engine followed the witness to the same outcome
    std::vector<std::string> outcomes;  // --all-outcomes: every reachable final state
    bool outcomes_complete = true;
  } smt;

  // The outcome in the words of `expected`: "pass", or "<result>: <property>".
  std::string outcome() const { return result == "pass" || property.empty() ? result : result + ": " + property; }
};

struct ScenarioReport {
  std::string scenario;  // path of the scenario file
  std::string name;
  std::string command;           // run, check, replay or native
  std::string platform = "sim";  // where the rows ran: sim or native
  bool swept = false;
  std::vector<RowReport> rows;

  // A scenario's result is the most telling of its rows': violation, then reachable, then
  // unreachable, then pass. It matched when every row did.
  std::string result() const {
    for (const char* outcome : {"violation", "reachable", "unreachable"})
      for (const RowReport& r : rows)
        if (r.result == outcome) return outcome;
    return "pass";
  }
  bool matched() const {
    for (const RowReport& r : rows)
      if (!r.matched) return false;
    return !rows.empty();
  }
  std::uint64_t internal_errors() const {
    std::uint64_t n = 0;
    for (const RowReport& r : rows) n += r.internal_errors;
    return n;
  }
};

}  // namespace lockstep::report
