#include "spec/workload_kinds.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/fileio/history_checks.hpp"
#include "core/properties.hpp"
#include "core/workloads/counter_sharing.hpp"
#include "core/workloads/fileio_workload.hpp"
#include "core/workloads/futex_hash.hpp"
#include "core/workloads/futex_pingpong.hpp"
#include "core/workloads/futex_ring.hpp"
#include "core/workloads/futex_wake.hpp"
#include "core/workloads/header_scan.hpp"
#include "core/workloads/lock_counter.hpp"
#include "core/workloads/program_workload.hpp"
#include "sim/machine/probes.hpp"
#include "spec/fileio_loader.hpp"
#include "spec/futex_loader.hpp"
#include "spec/machine_workloads_loader.hpp"

namespace lockstep::scenario {

std::string_view WorkloadSpec::name() const { return kind != nullptr ? kind->name : "none"; }

namespace {

constexpr std::int64_t kMaxCounterIterations = 1'000'000'000;
// Instructions of compute in one critical section: a million (about a millisecond) is far past any lock experiment.
constexpr std::uint64_t kMaxCsWork = 1'000'000;
// header-scan: buffers are real (simulated) memory, padded items of up to 64 KiB each.
constexpr std::int64_t kMaxScanBuffers = 1 << 20;
constexpr std::int64_t kMaxItemBytes = 64 << 10;
constexpr std::int64_t kMaxScanPasses = 1'000'000;
constexpr std::int64_t kMaxLargePages = 1 << 16;

HeaderScanParams load_header_scan(const yaml::Map& m, const MachineSpec& machine) {
  HeaderScanParams p;
  p.buffers = static_cast<int>(m.integer_or("buffers", 1, kMaxScanBuffers, p.buffers));
  p.item_bytes =
      static_cast<std::size_t>(m.integer_or("item_bytes", 8, kMaxItemBytes, static_cast<std::int64_t>(p.item_bytes)));
  p.colour = m.boolean_or("colour", p.colour);
  if (const auto keg = m.get("keg")) p.keg = static_cast<KegKind>(yaml::choice(m.source(), *keg, "keg", kKegKindNames));
  p.large_pages = static_cast<std::size_t>(m.integer_or("large_pages", 1, kMaxLargePages, 1));
  p.numa = m.boolean_or("numa", p.numa);
  p.threads = static_cast<int>(m.integer_or("threads", 1, std::min<std::int64_t>(p.buffers, sim::kMaxThreads), 1));
  p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
  p.passes = static_cast<int>(m.integer_or("passes", 2, kMaxScanPasses, p.passes));
  if (p.keg == KegKind::small && p.item_bytes + (p.colour ? kCacheLineBytes : 0) > alloc::kSmallPage)
    m.source().fail(m.node(), fmt::format("header-scan: a {}-byte item{} does not fit a 4 KiB page (keg: small)",
                                          p.item_bytes, p.colour ? " with its colour's line" : ""));
  return p;
}

// A row's properties, by the names core/properties.hpp declares (a test holds each to the table).
std::vector<std::string> names(std::initializer_list<std::string_view> properties) {
  return {properties.begin(), properties.end()};
}

std::vector<std::string> futex_properties() {
  return names({property::futex_semantics, property::deadlock, property::lost_wakeup, property::bound_exceeded});
}

std::vector<std::string> fileio_properties() {
  std::vector<std::string> out(fileio::kFileProperties.begin(), fileio::kFileProperties.end());
  out.insert(out.end(), {std::string(property::deadlock), std::string(property::bound_exceeded)});
  return out;
}

// futex-wake and futex-requeue: one workload (FutexWake), two modes.
template <FutexWakeMode Mode>
WorkloadKindInfo futex_wake_row(std::string_view name) {
  return {.name = name,
          .keys = {"threads", "batch", "rounds", "cpus", "settle_us"},
          .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
            return load_futex_wake(m, machine, design, Mode);
          },
          .properties = futex_properties()};
}

std::deque<WorkloadKindInfo>& kind_rows() {
  static std::deque<WorkloadKindInfo> rows{
      {.name = "lock-counter",
       .keys = {"threads", "iterations", "cpus", "cs_work"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
         LockCounterParams p;
         p.lock = design.spinlock;
         p.threads = static_cast<int>(m.integer_or("threads", 1, static_cast<std::int64_t>(sim::kMaxThreads), 2));
         p.iterations = static_cast<int>(m.integer_or("iterations", 1, kMaxCounterIterations, 10));
         p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
         p.cs_work = static_cast<std::uint32_t>(m.unsigned_or("cs_work", 0, kMaxCsWork, 0));
         return p;
       },
       .properties =
           names({property::mutual_exclusion, property::deadlock, property::lost_wakeup, property::bound_exceeded})},
      {.name = "header-scan",
       .keys = {"buffers", "item_bytes", "colour", "keg", "large_pages", "numa", "threads", "cpus", "passes"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec&) -> std::any {
         return load_header_scan(m, machine);
       },
       .properties = names({property::deadlock, property::bound_exceeded})},
      {.name = "counter-sharing",
       .keys = {"layout", "threads", "iterations", "cpus"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec&) -> std::any {
         static constexpr std::array<std::string_view, 3> kLayouts{"shared", "packed", "padded"};
         CounterSharingParams p;
         if (const auto layout = m.get("layout"))
           p.layout = static_cast<CounterLayout>(yaml::choice(m.source(), *layout, "layout", kLayouts));
         p.threads = static_cast<int>(m.integer_or("threads", 1, static_cast<std::int64_t>(sim::kMaxThreads), 2));
         p.iterations = static_cast<int>(m.integer_or("iterations", 1, kMaxCounterIterations, 1000));
         p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
         return p;
       },
       .properties = names({property::lost_update, property::deadlock, property::bound_exceeded})},
      {.name = "latency-probe",
       .keys = {"bytes", "placement", "cpu", "samples", "seed"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec&) -> std::any {
         return load_latency_probe(m, machine);
       },
       .properties = names({property::deadlock, property::bound_exceeded})},
      {.name = "c2c",
       .keys = {"rounds", "warmup_rounds", "smt", "cpus", "home"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec&) -> std::any {
         return load_c2c(m, machine);
       },
       .properties = names({property::deadlock, property::bound_exceeded})},
      {.name = "ccbench",
       .keys = {"state", "op", "holders", "cpus", "repetitions", "home"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec&) -> std::any {
         return load_ccbench(m, machine);
       },
       .properties = names({property::deadlock, property::bound_exceeded})},
      {.name = "futex-hash",
       .keys = {"threads", "futexes", "cpus", "runtime_us", "op", "warmup_passes", "processes", "keys", "key_count",
                "colliding_processes"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
         return load_futex_hash(m, machine, design);
       },
       .properties = futex_properties()},
      {.name = "futex-pingpong",
       .keys = {"threads", "words", "cpus", "runtime_us", "rounds"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
         return load_futex_pingpong(m, machine, design);
       },
       .properties = futex_properties()},
      {.name = "ring",
       .keys = {"threads", "cpus", "cpu_stride", "spin", "work", "runtime_us", "laps"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
         return load_futex_ring(m, machine, design);
       },
       .properties = futex_properties()},
      futex_wake_row<FutexWakeMode::wake>("futex-wake"),
      futex_wake_row<FutexWakeMode::requeue>("futex-requeue"),
      {.name = "fileio",
       .keys = {"size", "descriptors", "threads", "runtime_us"},
       .load = [](const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) -> std::any {
         return std::shared_ptr<const fileio::FileioSpec>(load_fileio_workload(m, machine, design));
       },
       .properties = fileio_properties()},
      // Thread programs are read from `threads` (program_loader.cpp), not from a workload map.
      {.name = "program",
       .keys = {},
       .load = nullptr,
       .properties = names({property::assertion, property::condvar_mutex, property::deadlock, property::lost_wakeup,
                            property::bound_exceeded})},
  };
  return rows;
}

}  // namespace

const std::deque<WorkloadKindInfo>& workload_kind_table() { return kind_rows(); }

void register_workload_kind(WorkloadKindInfo row) {
  if (row.name.empty() || find_workload(row.name) != nullptr)
    throw std::invalid_argument(fmt::format("register_workload: the kind '{}' is taken (or empty)", row.name));
  if (row.load == nullptr)
    throw std::invalid_argument(fmt::format("register_workload: '{}' needs a load entry", row.name));
  for (const std::string& p : row.properties)
    if (find_property(p) == nullptr)
      throw std::invalid_argument(
          fmt::format("register_workload: '{}' lists '{}', which core/properties.hpp does not declare", row.name, p));
  kind_rows().push_back(std::move(row));
}

const WorkloadKindInfo* find_workload(std::string_view name) {
  for (const WorkloadKindInfo& row : workload_kind_table())
    if (row.name == name) return &row;
  return nullptr;
}

const WorkloadKindInfo& program_workload() { return *find_workload("program"); }

}  // namespace lockstep::scenario
