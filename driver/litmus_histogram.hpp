// The final states of a native litmus run (driver/native_litmus.hpp), counted: each run's
// variables and registers, with the property a thread reported in it, if any. A final state
// is held as numbers while the runs go on (one map lookup per run) and is put in words, and
// judged against the program's final conditions, once per distinct state at the end.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/workloads/program.hpp"
#include "report/litmus_report.hpp"

namespace lockstep::driver {

class FinalStates {
 public:
  // A run's final state: the program's variables, then each thread's registers, in the
  // program's order.
  using Values = std::vector<std::int64_t>;

  void record(const Values& values, std::string_view violation);
  std::uint64_t runs() const { return runs_; }

  // Runs whose state (without a violation) satisfies `c`, or, with `fails`, does not.
  std::uint64_t count(const program::Program& prog, const program::FinalCondition& c, bool fails) const;
  // Runs in which a thread reported `property`.
  std::uint64_t violations(std::string_view property) const;
  // Every distinct state, in order of its values, in words ("t0.r0=0; t1.r1=0; x=1; y=1;").
  std::vector<report::LitmusState> histogram(const program::Program& prog) const;

 private:
  struct Key {
    Values values;
    std::string violation;
    bool operator<(const Key& other) const {
      return std::tie(values, violation) < std::tie(other.values, other.violation);
    }
  };
  std::map<Key, std::uint64_t> counts_;
  Key scratch_;  // reused by record: no allocation once the state was seen
  std::uint64_t runs_ = 0;
};

// litmus7's words for a final state: each register as thread.register=value, then each
// variable, each followed by "; ".
std::string describe_state(const program::Program& prog, const FinalStates::Values& values);

// Whether the final condition holds in a state.
bool holds(const program::Program& prog, const program::FinalCondition& c, const FinalStates::Values& values);

}  // namespace lockstep::driver
