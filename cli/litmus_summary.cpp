#include "cli/litmus_summary.hpp"

#include <fmt/format.h>

#include "report/si_units.hpp"

namespace lockstep::cli {

using report::LitmusCondition;
using report::LitmusReport;
using report::LitmusVerdict;

namespace {

std::string runs_line(const std::string& name, const LitmusReport& r) {
  std::string line = fmt::format("{}: native litmus run, {} runs in {:.2f} s ({})", name, r.runs, r.elapsed_s,
                                 report::format_si(r.runs_per_s, "runs/s"));
  if (r.interrupted) line += ", interrupted";
  std::string placement;
  for (std::size_t i = 0; i < r.threads.size() && i < r.host_cpus.size(); ++i)
    placement += fmt::format("{}{} on CPU {}", i == 0 ? "" : ", ", r.threads[i], r.host_cpus[i]);
  return fmt::format("{}\n  threads {}; start skew 0..{} pauses, seed {}\n", line, placement, r.max_skew, r.seed);
}

// litmus7's marks: "*>" before a state that satisfies an exists condition, ":>" before others.
std::string histogram(const LitmusReport& r) {
  std::string out = fmt::format("  histogram ({} state{}; *> satisfies an exists condition)\n", r.histogram.size(),
                                r.histogram.size() == 1 ? "" : "s");
  for (const report::LitmusState& s : r.histogram) {
    const std::string violation = s.violation.empty() ? std::string() : fmt::format("[{}] ", s.violation);
    out += fmt::format("  {:>12} {} {}{}\n", s.count, s.witness ? "*>" : ":>", violation, s.state);
  }
  return out;
}

// A witness or a violation settles the verdict whatever the search's extent; an absence is
// a proof only when the search was exhaustive.
std::string verdict_words(const LitmusVerdict& v) {
  if (v.result == "reachable" || v.result == "violation")
    return fmt::format("{} ({} found it in {} execution{})", v.result, v.strategy, v.executions,
                       v.executions == 1 ? "" : "s");
  return fmt::format("{} ({}, {}, {} execution{})", v.result, v.strategy,
                     v.exhaustive ? "exhaustive" : "not exhaustive", v.executions, v.executions == 1 ? "" : "s");
}

std::string condition(const LitmusCondition& c, const LitmusReport& r) {
  const std::string what = c.text.empty() ? c.property : fmt::format("{} ({})", c.property, c.text);
  const double rate = r.runs > 0 ? static_cast<double>(c.observed) / static_cast<double>(r.runs) : 0;
  std::string out = c.kind == "hang"
                        ? fmt::format("  {}: {}\n", what,
                                      c.observed > 0 ? "a run got stuck" : fmt::format("no run stuck in {}", r.runs))
                        : fmt::format("  {} {}: {} in {} of {} runs ({:.3g})\n", c.kind, what,
                                      c.kind == "exists" ? "observed" : "violated", c.observed, r.runs, rate);
  if (c.host)
    out += fmt::format("    checker under {} (this host, {}): {}\n", c.host->memory_model, r.host_arch,
                       verdict_words(*c.host));
  if (c.scenario)
    out += fmt::format("    checker under {} (the scenario's model): {}\n", c.scenario->memory_model,
                       verdict_words(*c.scenario));
  return out;
}

}  // namespace

std::string litmus_summary(const std::string& name, const report::RowReport& row) {
  if (!row.litmus) return "";
  const LitmusReport& r = *row.litmus;
  std::string out = runs_line(name, r) + histogram(r);
  for (const LitmusCondition& c : r.conditions) out += condition(c, r);
  for (const std::string& bug : r.model_bugs) out += fmt::format("  MODEL BUG: {}\n", bug);
  for (const std::string& note : r.notes) out += fmt::format("  note: {}\n", note);
  if (!r.model_bugs.empty()) {
    out += fmt::format("  INCONSISTENT with the checker under {}: hardware showed what the model forbids (exit 1)\n",
                       r.host_model);
  } else if (!r.stuck.empty() && !r.hang_explained) {
    out += "  a run got stuck, which the checker does not explain (exit 1)\n";
  } else if (!r.host_model.empty()) {
    out += fmt::format("  consistent with the checker under {}\n", r.host_model);
  }
  return out;
}

}  // namespace lockstep::cli
