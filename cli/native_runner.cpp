#include "cli/native_runner.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "cli/runner.hpp"
#include "core/futex/futex_table.hpp"
#include "core/workloads/fileio_workload.hpp"
#include "core/workloads/futex_hash.hpp"
#include "core/workloads/futex_pingpong.hpp"
#include "core/workloads/futex_wake.hpp"
#include "core/workloads/lock_counter.hpp"
#include "native/atomic_wait_futex.hpp"
#include "native/kernel_futex.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"

namespace lockstep::cli {

namespace {

using native::NativePlatform;

std::string kind_name(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::lock_counter: return "lock-counter";
    case WorkloadKind::program: return "thread programs";
    case WorkloadKind::latency_probe: return "latency-probe";
    case WorkloadKind::c2c: return "c2c";
    case WorkloadKind::futex_hash: return "futex-hash";
    case WorkloadKind::futex_wake: return "futex-wake";
    case WorkloadKind::futex_requeue: return "futex-requeue";
    case WorkloadKind::futex_pingpong: return "futex-pingpong";
    case WorkloadKind::fileio: return "fileio";
  }
  return "?";
}

FutexBackendKind backend_of(const Scenario& s) {
  return s.design.futex ? s.design.futex->backend : FutexBackendKind::table;
}

// Where a message about the row can point: the futex design when it is the cause, else the file.
std::string row_place(const Scenario& s) {
  return s.design.futex && !s.design.futex->where.empty() ? s.design.futex->where : s.path;
}

void check_row(const Scenario& s) {
  switch (s.workload.kind) {
    case WorkloadKind::lock_counter:
    case WorkloadKind::futex_hash:
    case WorkloadKind::futex_pingpong:
    case WorkloadKind::fileio: return;
    case WorkloadKind::futex_wake:
    case WorkloadKind::futex_requeue:
      // The waker counts the sleepers with the table's waiters_on(), which the host's futexes lack.
      if (backend_of(s) != FutexBackendKind::table)
        throw ScenarioError(fmt::format("{}: {} runs natively on a futex table design only, not on '{}'", row_place(s),
                                        kind_name(s.workload.kind), s.design.futex->name));
      return;
    case WorkloadKind::program:
    case WorkloadKind::latency_probe:
    case WorkloadKind::c2c: break;
  }
  throw ScenarioError(fmt::format(
      "{}: the {} workload runs in the simulator only (native runs: lock-counter, futex-hash, futex-pingpong, "
      "futex-wake, futex-requeue, fileio)",
      s.path, kind_name(s.workload.kind)));
}

bool is_checked(const Scenario& s, const std::string& property) {
  return std::find(s.properties.begin(), s.properties.end(), property) != s.properties.end();
}

// One native execution of workload W: set up, run the threads to the end, check.
template <class W, class Params>
RowReport run_workload(const Scenario& s, const Params& params) {
  W workload(params);
  native::NativeRunner runner;
  workload.setup([&runner](std::string name, CpuId cpu, std::function<void()> body) {
    runner.spawn(std::move(name), cpu, std::move(body));
  });
  native::NativeRunResult r = runner.run();
  workload.check();  // reports through the platform, after the threads' own reports
  if (native::NativeViolation late; native::take_violation(late) && !r.violation) r.violation = std::move(late);
  RowReport report;
  report.strategy = "native";
  report.executions = 1;
  report.elapsed_s = r.elapsed_s;
  if constexpr (requires { workload.metrics(); }) report.workload = workload.metrics();
  if (r.violation && is_checked(s, r.violation->property)) {
    report.result = "violation";
    report.property = r.violation->property;
    report.message = r.violation->message;
  } else {
    report.result = "pass";
  }
  return report;
}

// Calls f with the row's futex backend type (wrapped in std::type_identity), so each backend
// gets its own instantiation of the workload and no call goes through an indirection.
template <class F>
RowReport with_backend(const Scenario& s, F&& f) {
  switch (backend_of(s)) {
    case FutexBackendKind::table: return f(std::type_identity<futex::FutexTable<NativePlatform>>{});
    case FutexBackendKind::kernel: return f(std::type_identity<native::KernelFutex>{});
    case FutexBackendKind::std_atomic_wait: return f(std::type_identity<native::AtomicWaitFutex>{});
  }
  throw std::logic_error("unknown futex backend");
}

RowReport run_row(const Scenario& s) {
  switch (s.workload.kind) {
    case WorkloadKind::lock_counter:
      return run_workload<LockCounter<NativePlatform>>(s, s.workload.lock_counter);
    case WorkloadKind::futex_hash:
      return with_backend(s, [&s](auto backend) {
        return run_workload<FutexHash<NativePlatform, typename decltype(backend)::type>>(s, s.workload.futex_hash);
      });
    case WorkloadKind::futex_pingpong:
      return with_backend(s, [&s](auto backend) {
        return run_workload<FutexPingpong<NativePlatform, typename decltype(backend)::type>>(s,
                                                                                           s.workload.futex_pingpong);
      });
    case WorkloadKind::futex_wake:
    case WorkloadKind::futex_requeue:
      return run_workload<FutexWake<NativePlatform>>(s, s.workload.futex_wake);
    case WorkloadKind::fileio: return run_workload<FileioWorkload<NativePlatform>>(s, s.workload.fileio);
    case WorkloadKind::program:
    case WorkloadKind::latency_probe:
    case WorkloadKind::c2c: break;
  }
  throw std::logic_error("workload without a native form: require_native() was not called");
}

}  // namespace

void require_native(const ScenarioFile& file) {
  for (const Scenario& s : file.rows) check_row(s);
}

ScenarioReport run_native_file(const ScenarioFile& file) {
  ScenarioReport report;
  report.scenario = file.path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.command = "native";
  report.platform = "native";
  report.swept = file.swept;
  for (const Scenario& s : file.rows) {
    RowReport row = run_row(s);
    row.params = s.params;
    judge(row, s);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace lockstep::cli
