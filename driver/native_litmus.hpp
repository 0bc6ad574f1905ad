// `lockstep native` on thread programs: litmus7-style runs (docs/model-checking.md, "Native
// litmus runs"). The program runs many times on pinned threads (native/litmus_harness.hpp);
// the histogram of its final states is reported beside the model checker's verdict on each
// final condition under the memory model the host implements (driver/litmus_verdicts.hpp),
// and judged (driver/litmus_judge.hpp): an outcome the checker proves impossible that
// hardware showed is a model bug, and the row does not match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "native/litmus_harness.hpp"
#include "report/row_report.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

struct NativeLitmusOptions {
  // --runs and --seconds: whichever ends first. With neither, the default time budget; with
  // --runs alone, no time limit.
  std::optional<std::uint64_t> runs;
  std::optional<double> seconds;
  std::optional<std::uint64_t> seed;      // --seed: the skew generator's (default: the scenario's seed)
  std::optional<std::uint32_t> max_skew;  // --skew: pause instructions
  std::optional<double> watchdog_s;       // a run that takes longer is reported as stuck

  static constexpr double kDefaultSeconds = native::LitmusLimits::kDefaultSeconds;
  static constexpr std::uint32_t kDefaultMaxSkew = native::LitmusLimits::kDefaultMaxSkew;
};

// The memory model this host's processor implements, where lockstep models it (x86: tso),
// and the architecture's name, for the report.
std::optional<scenario::MemoryModel> host_memory_model();
std::string host_architecture();

// The row a judged litmus report (driver/litmus_judge.hpp) makes: its result is what hardware
// showed, its `expected` what the checker says under the host's model, in the words of
// results; it matches unless the report has a model bug or a stuck run.
report::RowReport litmus_row(report::LitmusReport litmus);

// Runs a thread-program row natively, many times; the report's `litmus` holds what it found.
// The row matches unless hardware showed an outcome the checker proves impossible under the
// host's model, or a run got stuck.
report::RowReport run_native_litmus(const scenario::Scenario& s, const NativeLitmusOptions& options);

}  // namespace lockstep::driver
