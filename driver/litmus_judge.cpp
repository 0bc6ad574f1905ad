#include "driver/litmus_judge.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

namespace lockstep::driver {

using report::LitmusCondition;
using report::LitmusReport;
using report::LitmusVerdict;

namespace {

std::string search_words(const LitmusVerdict& v) {
  return fmt::format("{}, {}, {} execution{}", v.strategy, v.exhaustive ? "exhaustive" : "not exhaustive", v.executions,
                     v.executions == 1 ? "" : "s");
}

// What "hardware showed the condition's outcome" is for each kind: the exists outcome reached,
// or the property violated. The checker's word for the same thing, and for its absence.
const char* shown_result(const LitmusCondition& c) { return c.kind == "exists" ? "reachable" : "violation"; }
const char* absent_result(const LitmusCondition& c) { return c.kind == "exists" ? "unreachable" : "pass"; }

std::string shown_words(const LitmusCondition& c, const LitmusReport& r) {
  const char* what = c.kind == "exists" ? "observed" : "violated";
  return fmt::format("{} {}: {} in {} of {} runs", c.kind, c.property, what, c.observed, r.runs);
}

void judge_condition(const LitmusCondition& c, LitmusReport& r) {
  if (!c.host) return;
  const LitmusVerdict& v = *c.host;
  if (v.internal_errors > 0) {
    r.notes.push_back(
        fmt::format("{} {}: the checker's search met {} internal error(s) under {}; its verdict is not "
                    "to be trusted",
                    c.kind, c.property, v.internal_errors, v.memory_model));
    return;
  }
  if (c.kind == "hang" && c.observed > 0) return;  // judged with the other hangs (judge_hang)
  if (c.observed > 0 && v.result == absent_result(c)) {
    if (v.exhaustive) {
      r.model_bugs.push_back(fmt::format(
          "{}, but the checker proves it {} under {} ({}): the model misses a "
          "behaviour of this host (a model bug)",
          shown_words(c, r), v.result == "pass" ? "never violated" : "unreachable", v.memory_model, search_words(v)));
    } else {
      r.notes.push_back(fmt::format("{}; the checker's search under {} did not find it ({}): search it exhaustively",
                                    shown_words(c, r), v.memory_model, search_words(v)));
    }
    return;
  }
  if (c.observed == 0 && v.result == shown_result(c) && r.runs > 0) {
    r.notes.push_back(
        fmt::format("{} {}: {} under {} but not {} in {} runs: hardware need not show every allowed "
                    "outcome",
                    c.kind, c.property, v.result == "violation" ? "violable" : "reachable", v.memory_model,
                    c.kind == "exists" ? "observed" : "violated", r.runs));
  }
}

// The scenario's own model, when it is not the host's: informative only, since the hardware
// implements the host's model whatever the scenario says.
void note_scenario_model(const LitmusCondition& c, LitmusReport& r) {
  if (!c.scenario || c.observed == 0 || c.scenario->result != absent_result(c)) return;
  r.notes.push_back(fmt::format("{}: the scenario's model {} forbids it, but this host implements {}, not {}",
                                shown_words(c, r), c.scenario->memory_model,
                                r.host_model.empty() ? std::string("no model lockstep has") : r.host_model,
                                c.scenario->memory_model));
}

// A stuck run is a deadlock or a lost wakeup to the checker. It is an outcome the program
// allows when the checker finds one; otherwise the row does not match, but it is not called a
// model bug: a program that ends holding a lock leaves the next run waiting for it, which one
// execution in the checker never shows.
void judge_hang(LitmusReport& r) {
  if (r.stuck.empty()) return;
  std::vector<std::string> found;
  for (const LitmusCondition& c : r.conditions)
    if (c.kind == "hang" && c.host && c.host->internal_errors == 0 && c.host->result == "violation")
      found.push_back(c.property);
  r.hang_explained = !found.empty();
  const std::string stuck = fmt::format(
      "run {} did not finish within the {} s watchdog (stuck: {}); the runs stopped "
      "there",
      r.runs + 1, r.watchdog_s, fmt::join(r.stuck, ", "));
  if (r.hang_explained) {
    r.notes.push_back(fmt::format("{}: the checker finds {} under {}, so a run that never ends is allowed", stuck,
                                  fmt::join(found, " and "), r.host_model));
  } else {
    r.notes.push_back(
        fmt::format("{}: a deadlock, a lost wakeup, or a lock a run left held, which the checker does "
                    "not explain (exit 1)",
                    stuck));
  }
}

}  // namespace

void judge_litmus(LitmusReport& r) {
  r.model_bugs.clear();
  r.notes.clear();
  r.hang_explained = false;
  if (r.host_model.empty())
    r.notes.push_back(
        fmt::format("lockstep has no model of the memory model of this host ({}): the histogram is "
                    "reported without the checker's verdicts",
                    r.host_arch));
  for (const LitmusCondition& c : r.conditions) {
    judge_condition(c, r);
    note_scenario_model(c, r);
  }
  if (r.interrupted) r.notes.push_back(fmt::format("interrupted (Ctrl-C) after {} runs", r.runs));
  judge_hang(r);
}

}  // namespace lockstep::driver
