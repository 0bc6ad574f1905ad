// The result JSON's members (docs/results.md), declared once: each member a row or a scenario
// object can hold, and what it is. report/result_json.cpp writes them, the viewer
// (gui/model/result.cpp) sorts a row's members by this table, and a test holds what the
// writer emits to it. A member not declared here is one of the workload's figures
// (report/workload_figures.hpp). Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace lockstep::report {

enum class MemberGroup : std::uint8_t {
  scenario,  // the scenario object's own: scenario, name, command, platform, swept, rows
  outcome,   // the verdict: params, result, property, message, expected, matched
  run,       // how the run or search went: strategy, seed, executions, ... (a key figure each)
  machine,   // machine measurements and where the machine came from
  files,     // what the row wrote and the command that replays it
  detail,    // a structure shown on its own: counterexample, lock profile, litmus, smt
};

struct ResultMember {
  std::string_view name;
  MemberGroup group;
  bool scalar;  // a number, string or flag shown as it is; false: a list or object
};

inline constexpr std::array<ResultMember, 57> kResultMembers{{
    {"scenario", MemberGroup::scenario, true},
    {"name", MemberGroup::scenario, true},
    {"command", MemberGroup::scenario, true},
    {"platform", MemberGroup::scenario, true},
    {"swept", MemberGroup::scenario, true},
    {"rows", MemberGroup::scenario, false},
    {"params", MemberGroup::outcome, false},
    {"result", MemberGroup::outcome, true},
    {"property", MemberGroup::outcome, true},
    {"message", MemberGroup::outcome, true},
    {"expected", MemberGroup::outcome, true},
    {"matched", MemberGroup::outcome, true},
    {"strategy", MemberGroup::run, true},
    {"seed", MemberGroup::run, true},
    {"executions", MemberGroup::run, true},
    {"exhaustive", MemberGroup::run, true},
    {"sim_ops", MemberGroup::run, true},
    {"steps", MemberGroup::run, true},
    {"virtual_time_ns", MemberGroup::run, true},
    {"elapsed_s", MemberGroup::run, true},
    {"sim_ops_per_host_s", MemberGroup::run, true},
    {"pruned", MemberGroup::run, true},
    {"max_depth", MemberGroup::run, true},
    {"bounds", MemberGroup::run, false},
    {"guarantee", MemberGroup::run, true},
    {"executions_per_s", MemberGroup::run, true},
    {"workers", MemberGroup::run, true},
    {"internal_errors", MemberGroup::run, true},
    {"parallel", MemberGroup::run, false},
    {"ranks", MemberGroup::run, true},
    {"remote_units", MemberGroup::run, true},
    {"remote_units_lent_back", MemberGroup::run, true},
    {"remote_progress_reports", MemberGroup::run, true},
    {"estimate", MemberGroup::run, false},
    {"trace_sha256", MemberGroup::run, true},
    {"machine", MemberGroup::machine, false},
    {"histogram", MemberGroup::machine, false},
    {"peaks_ns", MemberGroup::machine, false},
    {"mean_ns", MemberGroup::machine, true},
    {"c2c_cpus", MemberGroup::machine, false},
    {"c2c_ns", MemberGroup::machine, false},
    {"ccbench_test", MemberGroup::machine, true},
    {"ccbench", MemberGroup::machine, false},
    {"sources", MemberGroup::machine, false},
    {"writebacks", MemberGroup::machine, true},
    {"dram_banks_touched", MemberGroup::machine, true},
    {"dram_banks", MemberGroup::machine, true},
    {"dram_bank_peak_over_mean", MemberGroup::machine, true},
    {"trace", MemberGroup::files, true},
    {"chrome_trace", MemberGroup::files, true},
    {"schedule", MemberGroup::files, true},
    {"replay_command", MemberGroup::files, true},
    {"counterexample", MemberGroup::detail, false},
    {"smt", MemberGroup::detail, false},
    {"litmus", MemberGroup::detail, false},
    {"lock_profile", MemberGroup::detail, false},
    {"lock_profile_unmatched", MemberGroup::detail, true},
}};

constexpr const ResultMember* find_result_member(std::string_view name) {
  for (const ResultMember& m : kResultMembers)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace lockstep::report
