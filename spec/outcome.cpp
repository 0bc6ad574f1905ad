#include "spec/outcome.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/properties.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

using report::MachineProvenance;
using report::RowReport;

namespace {

bool is_exists(const Scenario& s, const std::string& property) {
  const std::vector<std::string> names = exists_conditions(s.workload);
  return std::find(names.begin(), names.end(), property) != names.end();
}

// Property names are unique among built-ins, forall and exists conditions (the loader sees
// to it), so a row's property says whether it was a witness.
void name_outcome(RowReport& report, const Scenario& s) {
  if (report.result == "violation" && is_exists(s, report.property)) {
    report.result = "reachable";
    return;
  }
  const std::vector<std::string> names = exists_conditions(s.workload);
  if (report.result != "pass" || names.empty()) return;
  report.result = "unreachable";
  report.property = yaml::join(names);
  if (report.smt.present) {
    // The solver proved it: for every execution, or for those within the unrolling.
    report.message = report.smt.complete
                         ? fmt::format("no execution reaches {} (proven by the solver)", report.property)
                         : fmt::format(
                               "no execution reaches {} within {} iterations of each while loop (a loop could "
                               "run longer)",
                               report.property, report.smt.unroll);
    return;
  }
  report.message = report.exhaustive
                       ? fmt::format("no execution within the bounds reaches {}", report.property)
                       : fmt::format("none of the {} executions reached {}", report.executions, report.property);
}

}  // namespace

bool reports_property(const Scenario& s, const std::string& property) {
  return property == property::invariant ||
         std::find(s.properties.begin(), s.properties.end(), property) != s.properties.end();
}

std::optional<sim::Violation> checked_violation(const Scenario& s, const sim::ExecutionResult& r) {
  if (!r.violation) return std::nullopt;
  // A timed run cut short by the step bound has no figures worth reporting (its rates
  // count a part of the window, or nothing): whatever the scenario checks, it fails.
  if (r.violation->property == "bound_exceeded" && s.strategy.kind == model::StrategyKind::timed) {
    sim::Violation v = *r.violation;
    v.message += "; a timed run's figures need its whole window: raise strategy.max_steps";
    return v;
  }
  if (reports_property(s, r.violation->property)) return r.violation;
  if (r.violation->property == "lost_wakeup" && reports_property(s, "deadlock")) {
    sim::Violation v = *r.violation;
    v.property = "deadlock";
    return v;
  }
  return std::nullopt;
}

std::string expected_text(const Expectation& e) {
  switch (e.kind) {
    case Expectation::Kind::pass:
      return "pass";
    case Expectation::Kind::violation:
      return "violation: " + e.property;
    case Expectation::Kind::reachable:
      return "reachable: " + e.property;
    case Expectation::Kind::unreachable:
      return "unreachable: " + e.property;
  }
  return "?";
}

namespace {

MachineProvenance provenance(const MachineSpec& m) {
  MachineProvenance out;
  if (m.model) out.name = m.model->name;
  out.note = m.calibration_note;
  if (m.calibration) {
    out.file = m.calibration->file;
    out.calibrated_host = m.calibration->host;
    out.calibrated_at = m.calibration->when;
  } else {
    out.file = m.machine_file;
  }
  return out;
}

}  // namespace

void judge(RowReport& report, const Scenario& s) {
  report.machine_source = provenance(s.machine);
  name_outcome(report, s);
  report.expected = expected_text(s.expect);
  if (report.result == "estimate") {  // `check --estimate`: no search, nothing to judge
    report.matched = true;
    return;
  }
  switch (s.expect.kind) {
    case Expectation::Kind::pass:
      report.matched = report.result == "pass";
      return;
    case Expectation::Kind::violation:
      report.matched = report.result == "violation" && report.property == s.expect.property;
      return;
    case Expectation::Kind::reachable:
      report.matched = report.result == "reachable" && report.property == s.expect.property;
      return;
    // No witness of any exists condition, hence none of this one.
    case Expectation::Kind::unreachable:
      report.matched = report.result == "unreachable";
      return;
  }
}

}  // namespace lockstep::scenario
