#include "driver/native_runner.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/native_litmus.hpp"
#include "driver/runner.hpp"
#include "scenario/workload_registry.hpp"
#include "scenario/yaml_fields.hpp"

namespace lockstep::driver {

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

// Thread programs run natively as litmus tests, many times (driver/native_litmus.hpp).
bool is_litmus(const Scenario& s) { return s.workload.kind == &program_workload(); }

void check_row(const Scenario& s) {
  const WorkloadKindInfo& row = *s.workload.kind;
  if (is_litmus(s)) return;
  if (row.native == nullptr) {
    std::vector<std::string> native;
    for (const WorkloadKindInfo& r : workload_registry())
      if (r.native != nullptr) native.emplace_back(r.name);
    native.emplace_back("thread programs");
    throw ScenarioError(fmt::format("{}: the {} workload runs in the simulator only (native runs: {})", s.path,
                                    row.name, yaml::join(native)));
  }
  if (row.check_native != nullptr) row.check_native(s);
}

}  // namespace

void require_native(const ScenarioFile& file) {
  for (const Scenario& s : file.rows) check_row(s);
}

ScenarioReport run_native_file(const ScenarioFile& file, const NativeLitmusOptions& litmus) {
  ScenarioReport report;
  report.scenario = file.path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.command = "native";
  report.platform = "native";
  report.swept = file.swept;
  for (const Scenario& s : file.rows) {
    if (is_litmus(s)) {  // judged against the checker under the host's model, not against `expect`
      RowReport row = run_native_litmus(s, litmus);
      row.params = s.params;
      report.rows.push_back(std::move(row));
      continue;
    }
    RowReport row = s.workload.kind->native(s);
    row.params = s.params;
    judge(row, s);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace lockstep::driver
