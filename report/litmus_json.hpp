// The `litmus` object of a native litmus run's result row (docs/results.md, "Native litmus
// runs"): the runs, the histogram, each condition's count and the checker's verdicts.
#pragma once

#include <nlohmann/json.hpp>

#include "report/litmus_report.hpp"

namespace lockstep::report {

nlohmann::ordered_json litmus_json(const report::LitmusReport& r);

}  // namespace lockstep::report
