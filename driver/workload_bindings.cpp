#include "driver/workload_bindings.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "core/futex/futex_table.hpp"
#include "core/workloads/counter_sharing.hpp"
#include "core/workloads/fileio_spec.hpp"
#include "core/workloads/fileio_workload.hpp"
#include "core/workloads/futex_hash.hpp"
#include "core/workloads/futex_pingpong.hpp"
#include "core/workloads/futex_ring.hpp"
#include "core/workloads/futex_wake.hpp"
#include "core/workloads/header_scan.hpp"
#include "core/workloads/lock_counter.hpp"
#include "core/workloads/program_workload.hpp"
#include "driver/workload_rows.hpp"
#include "native/atomic_wait_futex.hpp"
#include "native/kernel_futex.hpp"
#include "native/native_platform.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/machine/probes.hpp"

namespace lockstep::driver {

namespace {

using native::NativePlatform;
using report::RowReport;
using scenario::Scenario;
using scenario::ScenarioError;
using scenario::WorkloadSpec;
using sim::SimPlatform;

scenario::FutexBackendKind backend_of(const Scenario& s) {
  return s.design.futex ? s.design.futex->backend : scenario::FutexBackendKind::table;
}

// Calls f with the row's futex backend type (wrapped in std::type_identity), so each backend
// gets its own instantiation of the workload and no call goes through an indirection.
template <class F>
RowReport with_backend(const Scenario& s, F&& f) {
  switch (backend_of(s)) {
    case scenario::FutexBackendKind::table:
      return f(std::type_identity<futex::FutexTable<NativePlatform>>{});
    case scenario::FutexBackendKind::kernel:
      return f(std::type_identity<native::KernelFutex>{});
    case scenario::FutexBackendKind::std_atomic_wait:
      return f(std::type_identity<native::AtomicWaitFutex>{});
  }
  throw std::logic_error("unknown futex backend");
}

// A futex workload over any backend: the table, the host's futex(2), std::atomic::wait.
template <template <class, class> class W, class Params>
RowReport native_on_backend(const Scenario& s) {
  return with_backend(s, [&s](auto backend) {
    return run_native<W<NativePlatform, typename decltype(backend)::type>>(s, s.workload.get<Params>());
  });
}

// futex-wake and futex-requeue count the sleepers with the table's waiters_on(), which the
// host's futexes lack.
void table_backend_only(const Scenario& s) {
  if (backend_of(s) == scenario::FutexBackendKind::table) return;
  const std::string place = s.design.futex && !s.design.futex->where.empty() ? s.design.futex->where : s.path;
  throw ScenarioError(fmt::format("{}: {} runs natively on a futex table design only, not on '{}'", place,
                                  s.workload.name(), s.design.futex->name));
}

// A critical section's `cs_work` is simulated compute; natively it would cost nothing.
void lock_counter_native_check(const Scenario& s) {
  if (s.workload.get<LockCounterParams>().cs_work == 0) return;
  throw ScenarioError(
      fmt::format("{}: lock-counter's cs_work is simulated compute (Work::compute); natively it would "
                  "cost nothing: leave it out of a native run",
                  s.path));
}

// A ring's `work` is charged to the simulated CPU; the host's CPUs do no such work.
void ring_native_check(const Scenario& s) {
  if (s.workload.get<FutexRingParams>().work == 0) return;
  throw ScenarioError(
      fmt::format("{}: ring's work is simulated compute (Work::compute); natively it would cost nothing: "
                  "leave it out of a native ring",
                  s.path));
}

using FileSpec = std::shared_ptr<const fileio::FileioSpec>;
using ProgramSpec = std::shared_ptr<const program::Program>;

// A binding of the bundled kind `name` (spec/workload_kinds.cpp lists the same names).
WorkloadBinding bundled(std::string_view name, WorkloadBinding binding) {
  binding.kind = scenario::find_workload(name);
  if (binding.kind == nullptr) throw std::logic_error(fmt::format("no workload kind '{}' to bind", name));
  return binding;
}

std::deque<WorkloadBinding>& binding_rows() {
  static std::deque<WorkloadBinding> rows{
      bundled("lock-counter", {.simulate = simulate_row<LockCounter<SimPlatform>, LockCounterParams>,
                               .check_native = lock_counter_native_check,
                               .native = native_row<LockCounter<NativePlatform>, LockCounterParams>}),
      bundled("header-scan", {.simulate = simulate_row<HeaderScan<SimPlatform>, HeaderScanParams>,
                              .native = native_row<HeaderScan<NativePlatform>, HeaderScanParams>}),
      bundled("counter-sharing", {.simulate = simulate_row<CounterSharing<SimPlatform>, CounterSharingParams>,
                                  .native = native_row<CounterSharing<NativePlatform>, CounterSharingParams>}),
      bundled("latency-probe", {.simulate = [](const WorkloadSpec& w) -> std::unique_ptr<sim::SimWorkload> {
                return std::make_unique<sim::machine::LatencyProbe>(w.get<sim::machine::LatencyProbeParams>());
              }}),
      // One execution per pair of CPUs, and per measuring CPU: the runner's own loops
      // (RowRunner::c2c, RowRunner::ccbench).
      bundled("c2c", {}),
      bundled("ccbench", {}),
      bundled("futex-hash", {.simulate = simulate_row<FutexHash<SimPlatform>, FutexHashParams>,
                             .native = native_on_backend<FutexHash, FutexHashParams>}),
      bundled("futex-pingpong", {.simulate = simulate_row<FutexPingpong<SimPlatform>, FutexPingpongParams>,
                                 .native = native_on_backend<FutexPingpong, FutexPingpongParams>}),
      bundled("ring", {.simulate = simulate_row<FutexRing<SimPlatform>, FutexRingParams>,
                       .check_native = ring_native_check,
                       .native = native_on_backend<FutexRing, FutexRingParams>}),
      bundled("futex-wake", {.simulate = simulate_row<FutexWake<SimPlatform>, FutexWakeParams>,
                             .check_native = table_backend_only,
                             .native = native_row<FutexWake<NativePlatform>, FutexWakeParams>}),
      bundled("futex-requeue", {.simulate = simulate_row<FutexWake<SimPlatform>, FutexWakeParams>,
                                .check_native = table_backend_only,
                                .native = native_row<FutexWake<NativePlatform>, FutexWakeParams>}),
      bundled("fileio", {.simulate = simulate_row<FileioWorkload<SimPlatform>, FileSpec>,
                         .native = native_row<FileioWorkload<NativePlatform>, FileSpec>}),
      bundled("program", {.simulate = simulate_row<ProgramWorkload<SimPlatform>, ProgramSpec>}),
  };
  return rows;
}

}  // namespace

const std::deque<WorkloadBinding>& workload_bindings() { return binding_rows(); }

const WorkloadBinding& binding_of(const WorkloadSpec& workload) {
  // Pointer compares: a simulated search asks once per execution.
  for (const WorkloadBinding& b : binding_rows())
    if (b.kind == workload.kind) return b;
  throw std::logic_error(
      fmt::format("the workload kind '{}' has no binding to run it (driver::register_workload)", workload.name()));
}

void register_workload(scenario::WorkloadKindInfo kind, WorkloadBinding binding) {
  if (binding.simulate == nullptr)
    throw std::invalid_argument(fmt::format("register_workload: '{}' needs a simulate entry", kind.name));
  binding_rows();  // the bundled bindings first, while only the bundled kinds exist
  scenario::register_workload_kind(std::move(kind));
  binding.kind = &scenario::workload_kind_table().back();
  binding_rows().push_back(binding);
}

}  // namespace lockstep::driver
