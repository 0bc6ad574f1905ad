#include "report/litmus_json.hpp"

#include <cmath>

namespace lockstep::report {

namespace {

using Json = nlohmann::ordered_json;
using report::LitmusVerdict;

Json verdict_json(const LitmusVerdict& v) {
  return Json{{"memory_model", v.memory_model}, {"result", v.result},         {"exhaustive", v.exhaustive},
              {"strategy", v.strategy},         {"executions", v.executions}, {"internal_errors", v.internal_errors}};
}

// Host time varies from run to run anyway; microseconds are all a reader can use.
double rounded(double s) { return std::round(s * 1e6) / 1e6; }

}  // namespace

Json litmus_json(const report::LitmusReport& r) {
  Json out;
  out["runs"] = r.runs;
  out["elapsed_s"] = rounded(r.elapsed_s);
  out["runs_per_s"] = std::round(r.runs_per_s);
  out["max_runs"] = r.max_runs;
  out["seconds"] = r.seconds;
  out["seed"] = r.seed;
  out["max_skew"] = r.max_skew;
  Json threads = Json::array();
  for (std::size_t i = 0; i < r.threads.size(); ++i)
    threads.push_back(Json{{"name", r.threads[i]}, {"cpu", i < r.host_cpus.size() ? r.host_cpus[i] : -1}});
  out["threads"] = std::move(threads);
  out["host_arch"] = r.host_arch;
  out["host_memory_model"] = r.host_model;
  out["scenario_memory_model"] = r.scenario_model;
  out["interrupted"] = r.interrupted;
  out["stuck"] = r.stuck;
  out["watchdog_s"] = r.watchdog_s;
  out["hang_explained"] = r.hang_explained;
  Json states = Json::array();
  for (const report::LitmusState& s : r.histogram) {
    Json state{{"state", s.state}, {"count", s.count}, {"witness", s.witness}};
    if (!s.violation.empty()) state["violation"] = s.violation;
    states.push_back(std::move(state));
  }
  out["histogram"] = std::move(states);
  Json conditions = Json::array();
  for (const report::LitmusCondition& c : r.conditions) {
    Json condition{{"property", c.property}, {"kind", c.kind}, {"condition", c.text}, {"observed", c.observed}};
    if (c.host) condition["checker"] = verdict_json(*c.host);
    if (c.scenario) condition["scenario_checker"] = verdict_json(*c.scenario);
    conditions.push_back(std::move(condition));
  }
  out["conditions"] = std::move(conditions);
  out["model_bugs"] = r.model_bugs;
  out["notes"] = r.notes;
  return out;
}

}  // namespace lockstep::report
