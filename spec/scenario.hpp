// A scenario, validated: what one row of a scenario file asks for (docs/scenarios.md).
// A file with a `sweep` gives one Scenario per combination of the swept values.
#pragma once

#include <algorithm>
#include <any>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fileio/fileio_config.hpp"
#include "core/futex/futex_config.hpp"
#include "core/sync/spinlock.hpp"
#include "core/usync/any_condvar.hpp"
#include "core/usync/any_mutex.hpp"
#include "core/workloads/fileio_spec.hpp"
#include "core/workloads/futex_hash.hpp"
#include "core/workloads/futex_pingpong.hpp"
#include "core/workloads/futex_ring.hpp"
#include "core/workloads/futex_wake.hpp"
#include "core/workloads/header_scan.hpp"
#include "core/workloads/lock_counter.hpp"
#include "core/workloads/program.hpp"
#include "model/strategy_spec.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/exec/placement.hpp"
#include "sim/machine/ccbench.hpp"
#include "sim/machine/machine_config.hpp"
#include "sim/machine/probes.hpp"

namespace lockstep::scenario {

// Bad input: the message starts with "file:line:col: " wherever a place is known.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What `lockstep calibrate` recorded beside a machine it measured (docs/machines.md,
// "Machine files"): which host, when, and what each fitted number came from.
struct CalibrationInfo {
  std::string file;                                          // the machine file it was read from
  std::string host;                                          // host name
  std::string cpu;                                           // CPU model, as /proc/cpuinfo names it
  int cpus = 0;                                              // CPUs online
  std::string when;                                          // ISO 8601, UTC
  std::string clock;                                         // what timed the probes
  std::vector<std::pair<std::string, std::string>> sources;  // field -> what it was fitted from
  std::vector<std::string> notes;
};

struct MachineSpec {
  std::string preset = "flat";
  std::vector<NodeId> node_of_cpu;  // one entry per CPU
  sim::FlatCosts costs;             // the flat preset's costs; a modelled machine's OS costs
  // Every preset but `flat`: the machine model (topology, caches, coherence, DRAM), with the
  // scenario's overrides applied. node_of_cpu and costs mirror it.
  std::optional<sim::machine::MachineConfig> model;
  sim::MemoryPolicy memory_policy = sim::MemoryPolicy::as_requested;
  std::string machine_file;                    // `machine: {file: ...}`: the file it came from
  std::optional<CalibrationInfo> calibration;  // set when a calibration's numbers are used
  std::string calibration_note;                // `preset: host` without a usable calibration: why
  int cpus() const { return static_cast<int>(node_of_cpu.size()); }
  int nodes() const {  // at least one
    return node_of_cpu.empty() ? 1 : *std::max_element(node_of_cpu.begin(), node_of_cpu.end()) + 1;
  }
};

enum class MemoryModel : std::uint8_t { sc, tso };

// Which futex a futex workload calls: one of our tables (simulated or native), or, natively
// only, the host kernel's futex(2) or libstdc++'s std::atomic wait/notify.
enum class FutexBackendKind : std::uint8_t { table, kernel, std_atomic_wait };
inline constexpr std::array<std::string_view, 3> kFutexBackendNames{"table", "kernel", "std-atomic-wait"};

// A futex table design: a named one (core/futex/futex_designs.hpp) or "custom", with the
// scenario's overrides applied; or a host backend (`kernel`, `std-atomic-wait`), whose
// config is unused.
struct FutexDesign {
  std::string name;
  futex::FutexConfig config;
  FutexBackendKind backend = FutexBackendKind::table;
  std::string where;  // "file:line:col" of the name, for "runs only natively" errors
};

struct DesignSpec {
  std::string family = "spinlock";
  SpinlockKind spinlock = SpinlockKind::ticket;
  std::optional<FutexDesign> futex;
  // `mutex: KIND`: thread programs' locks are futex mutexes (core/usync/any_mutex.hpp).
  std::optional<usync::MutexKind> mutex;
  std::string mutex_where;  // "file:line:col" of the kind, for errors
  // `condvar: KIND`: thread programs' condvars (core/usync/any_condvar.hpp); sequence if not given.
  std::optional<usync::CondvarKind> condvar;
  std::string condvar_where;
  // `fileio: {...}`: the offset and data policies of the fileio workload (docs/fileio.md).
  std::optional<fileio::FileioConfig> fileio;
  std::string fileio_where;
};

struct WorkloadKindInfo;  // a row of the workload kinds (spec/workload_kinds.hpp)

// A scenario's workload: its kind's row and that row's parameters (LockCounterParams for
// lock-counter, std::shared_ptr<const program::Program> for thread programs, ...).
struct WorkloadSpec {
  const WorkloadKindInfo* kind = nullptr;
  std::any params;

  std::string_view name() const;  // the row's kind name
  bool is(std::string_view kind_name) const { return name() == kind_name; }
  // The parameters as the row's type; another type is a bug (std::logic_error).
  template <class T>
  const T& get() const {
    if (const T* p = std::any_cast<T>(&params)) return *p;
    throw std::logic_error(std::string("workload parameters of another type than the ") + std::string(name()) +
                           " row's");
  }
};

// Where a scenario is meant to run: `sim` scenarios run under run/check/replay (and natively
// where the workload has a native form); `native` ones only under `lockstep native`.
enum class PlatformKind : std::uint8_t { sim, native };

// A scenario's `strategy` is the model layer's description of a search.
using model::StrategyKind;
using model::StrategySpec;

// `expect`: no violation; a violation of `property`; or, for an `exists` condition
// `property`, that some execution reaches it or that none does.
// How far a simulated figure may be from the measured one, in percent of the measured
// (`expect: {fidelity: {ops_per_s: 15}}`; `lockstep compare` judges it, docs/compare.md).
struct FidelityTolerance {
  std::string metric;  // a compared metric, or `ratios` for the design ratios of a sweep
  double percent = 0;
  std::string where;  // "file:line:col", for a metric the workload does not report
};

struct Expectation {
  enum class Kind : std::uint8_t { pass, violation, reachable, unreachable };
  Kind kind = Kind::pass;
  std::string property;  // unless pass
  std::vector<FidelityTolerance> fidelity;
};

struct Scenario {
  std::string path;  // the file, as given
  std::string name;
  std::string description;
  PlatformKind platform = PlatformKind::sim;
  std::string platform_where;  // "file:line:col" of `platform: native`, for errors
  MachineSpec machine;
  MemoryModel memory_model = MemoryModel::sc;
  // `scheduler: {idle: ..., placement: ...}` (docs/os.md): what the simulated CPUs' idle
  // loop does, and where threads run.
  sim::IdlePolicy idle = sim::IdlePolicy::none;
  sim::ThreadPlacement placement = sim::ThreadPlacement::pinned;
  std::uint64_t balance_interval_ns = sim::kUleBalanceIntervalNs;  // topology's periodic balancer
  DesignSpec design;
  WorkloadSpec workload;
  std::vector<std::string> properties;  // checked properties; a violation of another is ignored
  StrategySpec strategy;
  Expectation expect;
  std::vector<std::pair<std::string, std::string>> params;  // this sweep row's values, "path" -> "value"
};

struct ScenarioFile {
  std::string path;
  std::string sha256;  // of the file's bytes
  bool swept = false;
  std::vector<Scenario> rows;  // one unless swept
};

// Reads, parses and validates a scenario file. Throws ScenarioError.
ScenarioFile load_scenario_file(const std::string& path);
// The same scenario simulated on another machine: `machine` is a machine map in YAML flow
// form ("{preset: host}", "{file: /abs/m.yaml}") that replaces the scenario's, and the rows
// are simulations whatever `platform` says. A sweep of machine.* is refused. A timed
// workload's `runtime_us` is cut to `runtime_cap_us` when that is not 0 (rates do not
// depend on the window's length, the time to simulate it does), and raised to
// `runtime_floor_us` when it is shorter.
ScenarioFile load_scenario_file_on(const std::string& path, const std::string& machine,
                                   std::uint64_t runtime_cap_us = 0, std::uint64_t runtime_floor_us = 0);

// One row of `path` with the given sweep values (from a schedule file). Throws ScenarioError.
Scenario load_scenario_row(const std::string& path, const std::vector<std::pair<std::string, std::string>>& params);

// What `lockstep list` shows and validation accepts.
// The top-level keys a scenario file may hold (the JSON Schema lists them).
std::vector<std::string_view> scenario_keys();
std::vector<std::string> machine_presets();
std::vector<std::string> workload_kinds();
std::vector<std::string> builtin_properties();
std::vector<std::string> fixed_properties();  // of them, those no final condition may be named

// The names of a workload's `exists` conditions (thread programs only), in file order.
std::vector<std::string> exists_conditions(const WorkloadSpec& w);

}  // namespace lockstep::scenario
