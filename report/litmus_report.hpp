// What a native litmus run of thread programs found (`lockstep native` on a thread-program
// scenario; docs/model-checking.md, "Native litmus runs"): the histogram of final states over
// many runs on real threads, each final condition's count, the model checker's verdict on it
// under the host's memory model, and the judgement of the two together. The result JSON's
// `litmus` object (docs/results.md, "Native litmus runs") is this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::report {

// One distinct final state and how many runs ended in it.
struct LitmusState {
  std::string state;  // "t0.r0=0; t1.r1=0; x=1; y=1;": registers, then variables
  std::uint64_t count = 0;
  std::string violation;  // the property a thread of these runs violated (assertion, ...), if any
  bool witness = false;   // the state satisfies some `exists` condition (and no violation)
};

// What the model checker says of one condition under one memory model.
struct LitmusVerdict {
  std::string memory_model;  // sc or tso
  // exists: reachable or unreachable; forall, assertion and the other properties: violation
  // (some execution violates it) or pass.
  std::string result;
  bool exhaustive = false;  // the search covered every execution within its bounds
  std::string strategy;     // dfs, bounded, ...
  std::uint64_t executions = 0;
  std::uint64_t internal_errors = 0;  // > 0: the search is not to be trusted (a checker bug)
};

// One property the runs are judged by: an `exists` condition, a `forall` condition, or a
// property the program's own ops report (assertion, bound_exceeded).
struct LitmusCondition {
  std::string property;
  std::string kind;  // exists, forall, property (assertion, bound_exceeded) or hang (deadlock, lost_wakeup)
  std::string text;  // the condition as written (empty for a property)
  // exists: runs whose final state satisfied it; forall, property: runs that violated it;
  // hang: 1 when a run got stuck (the runs end there), else 0.
  std::uint64_t observed = 0;
  std::optional<LitmusVerdict> host;      // under the host's memory model, where there is one
  std::optional<LitmusVerdict> scenario;  // under the scenario's, when it differs from the host's
};

struct LitmusReport {
  std::uint64_t runs = 0;
  double elapsed_s = 0;
  double runs_per_s = 0;
  std::uint64_t max_runs = 0;  // --runs (0: none)
  double seconds = 0;          // --seconds: the time budget
  std::uint64_t seed = 0;
  std::uint32_t max_skew = 0;        // pause instructions
  std::vector<std::string> threads;  // the program's threads, in order
  std::vector<int> host_cpus;        // the host CPU each thread was pinned to
  std::string host_arch;             // x86-64, aarch64, ...
  std::string host_model;            // the memory model the host implements (tso), empty if none is modelled
  std::string scenario_model;        // the scenario's memory_model
  bool interrupted = false;          // Ctrl-C ended the runs early
  std::vector<std::string> stuck;    // threads of a run the watchdog abandoned
  double watchdog_s = 0;
  std::vector<LitmusState> histogram;  // sorted by state
  std::vector<LitmusCondition> conditions;
  // The judgement (driver/litmus_judge.hpp): outcomes the checker proves impossible under the
  // host's model but hardware showed (a model bug: exit 1), and what is only worth a note.
  std::vector<std::string> model_bugs;
  std::vector<std::string> notes;
  // A stuck run that the checker explains: it finds a deadlock or a lost wakeup under the
  // host's model. An unexplained one makes the row not match.
  bool hang_explained = false;
};

}  // namespace lockstep::report
