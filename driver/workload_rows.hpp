// How a workload written against the Platform concept (core/platform.hpp, a `Workload` of
// core/workloads/workload.hpp) becomes a binding (driver/workload_bindings.hpp):
// `simulate_row<W, Params>` makes a fresh W<SimPlatform> per simulated execution,
// `native_row<W, Params>` runs W natively once. The bundled bindings use them, and so can a
// program outside the tree that registers its own workload (register_workload;
// examples/backoff-lock/).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/workloads/workload.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "report/row_report.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "spec/outcome.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

namespace rows {
// The simulator: a fresh workload per execution (sim/exec/workload_adapter.hpp).
//
// Each simulator gets parameters of its own. A program is shared through a shared_ptr, and
// every execution's workload copies it: with one copy for all the workers of a parallel
// search, each execution's reference count went up and down on one cache line that every
// core wrote (2% of a 2-worker dfs in perf, and slower steps around it).
template <class P>
P own_copy(const P& params) {
  return params;
}
template <class T>
std::shared_ptr<const T> own_copy(const std::shared_ptr<const T>& shared) {
  return std::make_shared<const T>(*shared);
}

}  // namespace rows

template <class W, class Params>
std::unique_ptr<sim::SimWorkload> simulate_row(const scenario::WorkloadSpec& spec) {
  return std::make_unique<sim::SimWorkloadOf<W, Params>>(rows::own_copy(spec.get<Params>()));
}

// Natively: one execution on real threads.

template <class W, class Params>
requires Workload<W, native::NativePlatform::Thread> report::RowReport run_native(const scenario::Scenario& s,
                                                                                  const Params& params) {
  W workload(params);
  native::NativeRunner runner;
  std::string label = s.name;
  for (const auto& [path, value] : s.params) label += fmt::format(", {}={}", path, value);
  runner.set_label(std::move(label));
  workload.setup([&runner](std::string name, CpuId cpu, std::function<void()> body) {
    runner.spawn(std::move(name), cpu, std::move(body));
  });
  native::NativeRunResult r = runner.run();
  workload.check();  // reports through the platform, after the threads' own reports
  if (native::NativeViolation late; native::take_violation(late) && !r.violation) r.violation = std::move(late);
  report::RowReport report;
  report.strategy = "native";
  report.executions = 1;
  report.elapsed_s = r.elapsed_s;
  if constexpr (W::kHooks.metrics) report.workload = workload.metrics();
  if (r.violation && scenario::reports_property(s, r.violation->property)) {
    report.result = "violation";
    report.property = r.violation->property;
    report.message = r.violation->message;
  } else {
    report.result = "pass";
  }
  return report;
}

template <class W, class Params>
report::RowReport native_row(const scenario::Scenario& s) {
  return run_native<W>(s, s.workload.get<Params>());
}

}  // namespace lockstep::driver
