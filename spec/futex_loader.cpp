#include "spec/futex_loader.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "axiomatic/futex_keys.hpp"
#include "core/futex/futex_designs.hpp"
#include "sim/exec/memory.hpp"

namespace lockstep::scenario {

namespace {

constexpr std::uint64_t kMaxRuntimeUs = 1'000'000'000;
constexpr std::int64_t kMaxFutexesPerThread = 1 << 20;
// Each colliding key costs the solver a page or more of queries (docs/futex.md).
constexpr std::int64_t kMaxCollidingKeys = 256;
constexpr std::int64_t kMaxRounds = 1'000'000;
constexpr std::uint64_t kMaxSettleUs = 10'000'000;  // 10 s: perf settles 100 ms
constexpr std::uint64_t kMaxPingpongRounds = 1'000'000'000;
constexpr std::int64_t kMaxRingSpin = 100'000'000;    // reads before sleeping: seconds of spinning
constexpr std::int64_t kMaxRingWork = 1'000'000'000;  // compute units a hop: about a second

// The table designs, then the host's futexes (FutexBackendKind after `table`), which only
// `lockstep native` runs.
std::vector<std::string_view> design_names() {
  std::vector<std::string_view> names;
  for (const futex::NamedDesign& d : futex::kNamedDesigns) names.push_back(d.name);
  for (std::size_t b = 1; b < kFutexBackendNames.size(); ++b) names.push_back(kFutexBackendNames[b]);
  return names;
}

// Sets the design named by names[i]: a table design's configuration or a host backend.
void name_design(FutexDesign& d, const std::vector<std::string_view>& names, std::size_t i) {
  d.name = std::string(names[i]);
  if (i < futex::kNamedDesigns.size()) {
    d.config = futex::kNamedDesigns[i].config;
  } else {
    d.backend = static_cast<FutexBackendKind>(i - futex::kNamedDesigns.size() + 1);
  }
}

template <class E, std::size_t N>
E field(const yaml::Map& m, std::string_view key, const std::array<std::string_view, N>& names, E fallback) {
  const auto node = m.get(key);
  if (!node) return fallback;
  return static_cast<E>(yaml::choice(m.source(), *node, key, names));
}

int threads_in(const yaml::Map& m, std::string_view key, int fallback) {
  return static_cast<int>(m.integer_or(key, 1, static_cast<std::int64_t>(sim::kMaxThreads) - 1, fallback));
}

}  // namespace

futex::FutexMachine futex_machine(const MachineSpec& machine) {
  return futex::FutexMachine{std::max(1, machine.cpus()), machine.nodes(), 1};
}

// The keys that configure a table's fields (FutexConfig), beside `design` and `name`.
constexpr std::array<std::string_view, 10> kTableKeys{
    "sizing", "placement", "layout", "lock", "hash", "key", "wake_fastpath", "ref", "back_pointer", "private_buckets"};

FutexDesign load_futex_design(const yaml::Source& src, const YAML::Node& node) {
  const std::vector<std::string_view> names = design_names();
  FutexDesign d;
  if (node.IsScalar()) {
    name_design(d, names, yaml::choice(src, node, "futex design", names));
    d.where = src.where(node);
    return d;
  }
  std::vector<std::string_view> keys{"design", "name"};
  keys.insert(keys.end(), kTableKeys.begin(), kTableKeys.end());
  const yaml::Map m(src, node, "futex", std::move(keys));
  d.name = "custom";
  d.where = src.where(node);
  if (const auto base = m.get("design")) {
    name_design(d, names, yaml::choice(src, *base, "futex design", names));
    d.where = src.where(*base);
  }
  if (d.backend != FutexBackendKind::table) {
    for (std::string_view key : kTableKeys)
      if (const auto at = m.key_node(key))
        src.fail(*at, fmt::format("'{}' configures a futex table, but '{}' is the host's futex", key, d.name));
  }
  futex::FutexConfig& c = d.config;
  c.sizing = field(m, "sizing", futex::kSizingNames, c.sizing);
  c.placement = field(m, "placement", futex::kPlacementNames, c.placement);
  c.layout = field(m, "layout", futex::kLayoutNames, c.layout);
  c.lock = field(m, "lock", kSpinlockNames, c.lock);
  // The bucket locks Linux has had: the ticket lock, then qspinlock (MCS-based); TTAS for
  // comparison. TAS is a lock of lock-counter's comparisons only.
  // (CLH's nodes must live as long as the lock; a futex waiter's node is on its stack.)
  if (c.lock == SpinlockKind::tas || c.lock == SpinlockKind::clh)
    src.fail(*m.get("lock"), "lock: a futex bucket's lock is ticket, ttas or mcs");
  c.hash = field(m, "hash", futex::kHashNames, c.hash);
  c.key = field(m, "key", futex::kKeyNames, c.key);
  c.fastpath = field(m, "wake_fastpath", futex::kFastpathNames, c.fastpath);
  c.ref = field(m, "ref", futex::kProcessRefNames, c.ref);
  c.back_pointer = m.boolean_or("back_pointer", c.back_pointer);
  // `perf bench futex hash -b N`: the private table's size, fixed (PR_FUTEX_HASH_SET_SLOTS).
  c.private_buckets = static_cast<std::uint32_t>(m.unsigned_or("private_buckets", 2, 1U << 24, c.private_buckets));
  if (const auto at = m.key_node("private_buckets")) {
    if ((c.private_buckets & (c.private_buckets - 1)) != 0)
      src.fail(*at, "private_buckets: a power of two (the kernel rounds the slots it is given up to one)");
    if (c.sizing != futex::Sizing::process_private)
      src.fail(*at, "private_buckets sizes the per-process private table: it needs `sizing: private`");
  }
  if (std::any_of(kTableKeys.begin(), kTableKeys.end(), [&m](std::string_view key) { return m.has(std::string(key)); }))
    d.name = d.name == "custom" ? "custom" : d.name + "+";
  d.name = m.scalar_or("name", d.name);
  return d;
}

// What the futex workloads that run for a time share: the design (`missing` says what to
// give when there is none), `cpus`, the machine the table is sized for, and `runtime_us`.
template <class Params>
Params timed_futex_workload(const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design,
                            const char* missing) {
  if (!design.futex) m.source().fail(m.node(), missing);
  Params p;
  p.config = design.futex->config;
  p.design = design.futex->name;
  p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
  p.machine = futex_machine(machine);
  p.runtime_ns = m.unsigned_or("runtime_us", 1, kMaxRuntimeUs, p.runtime_ns / 1000) * 1000;
  return p;
}

namespace {

// `keys: colliding` (with `key_count` and `colliding_processes`), or the same as a map:
// `keys: {kind: colliding, count: 8, processes: 1}`.
void load_key_choice(const yaml::Map& m, const DesignSpec& design, FutexHashParams& p) {
  const yaml::Source& src = m.source();
  static constexpr std::array<std::string_view, 2> kKinds{"default", "colliding"};
  const auto keys = m.get("keys");
  std::int64_t count = m.integer_or("key_count", 1, kMaxCollidingKeys, p.key_count);
  std::int64_t processes = m.integer_or("colliding_processes", 1, p.processes, p.processes);
  if (keys && keys->IsMap()) {
    const yaml::Map k(src, *keys, "keys", {"kind", "count", "processes"});
    p.keys = static_cast<futex::KeyChoice>(yaml::choice(src, k.required("kind"), "keys kind", kKinds));
    count = k.integer_or("count", 1, kMaxCollidingKeys, count);
    processes = k.integer_or("processes", 1, p.processes, processes);
  } else if (keys) {
    p.keys = static_cast<futex::KeyChoice>(yaml::choice(src, *keys, "keys", kKinds));
  }
  p.key_count = static_cast<int>(count);
  p.colliding_processes = static_cast<int>(processes);
  if (p.keys != futex::KeyChoice::colliding) return;
  if (design.futex->backend != FutexBackendKind::table)
    src.fail(*keys, fmt::format("colliding keys need one of our futex tables, not '{}': the kernel's keys cannot be "
                                "computed from user space (its hash mixes the kernel's own pointers)",
                                design.futex->name));
  p.find_keys = axiomatic::find_colliding_keys;
}

}  // namespace

FutexHashParams load_futex_hash(const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) {
  const yaml::Source& src = m.source();
  auto p = timed_futex_workload<FutexHashParams>(
      m, machine, design, "futex-hash needs a futex design: `design: {futex: baseline}` (or aligned, numa, both, ...)");
  p.threads = threads_in(m, "threads", machine.cpus());
  p.futexes = static_cast<int>(m.integer_or("futexes", 1, kMaxFutexesPerThread, p.futexes));
  p.warmup_passes = static_cast<int>(m.integer_or("warmup_passes", 0, 1000, p.warmup_passes));
  static constexpr std::array<std::string_view, 2> kOps{"wait", "wake"};
  if (const auto op = m.get("op")) p.op = static_cast<FutexHashOp>(yaml::choice(src, *op, "op", kOps));
  p.processes = static_cast<int>(m.integer_or("processes", 1, p.threads, 1));
  load_key_choice(m, design, p);
  return p;
}

FutexPingpongParams load_futex_pingpong(const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) {
  auto p = timed_futex_workload<FutexPingpongParams>(
      m, machine, design, "futex-pingpong needs a futex design: `design: {futex: linux-3.14}` (or another)");
  p.threads = threads_in(m, "threads", std::max(2, machine.cpus() - machine.cpus() % 2));
  if (p.threads % 2 != 0)
    m.source().fail(*m.get("threads"),
                    fmt::format("futex-pingpong runs threads in pairs: threads must be even, not {}", p.threads));
  p.words = static_cast<int>(m.integer_or("words", 1, kMaxFutexesPerThread, p.words));
  p.rounds = m.unsigned_or("rounds", 0, kMaxPingpongRounds, p.rounds);
  return p;
}

FutexRingParams load_futex_ring(const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design) {
  auto p = timed_futex_workload<FutexRingParams>(
      m, machine, design,
      "ring sleeps in futex waits: it needs a futex design: `design: {futex: linux-3.14}` (or kernel, natively)");
  p.threads = threads_in(m, "threads", std::max(2, std::min(machine.cpus(), 4)));
  if (p.threads < 2)
    m.source().fail(*m.get("threads"), fmt::format("ring: a ring needs at least 2 threads, not {}", p.threads));
  p.cpu_stride = static_cast<int>(m.integer_or("cpu_stride", 1, machine.cpus(), 1));
  p.spin = static_cast<std::uint32_t>(m.integer_or("spin", 0, kMaxRingSpin, 0));
  p.work = static_cast<std::uint32_t>(m.integer_or("work", 0, kMaxRingWork, 0));
  p.laps = m.unsigned_or("laps", 0, kMaxPingpongRounds, p.laps);
  return p;
}

FutexWakeParams load_futex_wake(const yaml::Map& m, const MachineSpec& machine, const DesignSpec& design,
                                FutexWakeMode mode) {
  const yaml::Source& src = m.source();
  if (!design.futex)
    src.fail(m.node(), "this workload needs a futex design: `design: {futex: linux-3.14}` (or another)");
  FutexWakeParams p;
  p.mode = mode;
  p.config = design.futex->config;
  p.design = design.futex->name;
  p.sleepers = threads_in(m, "threads", std::max(1, machine.cpus() - 1));
  p.batch = static_cast<int>(m.integer_or("batch", 1, p.sleepers, 1));
  p.rounds = static_cast<int>(m.integer_or("rounds", 1, kMaxRounds, p.rounds));
  p.cpus = static_cast<int>(m.integer_or("cpus", 1, machine.cpus(), machine.cpus()));
  p.settle_ns = m.unsigned_or("settle_us", 0, kMaxSettleUs, p.settle_ns / 1000) * 1000;
  p.machine = futex_machine(machine);
  return p;
}

std::vector<std::string_view> futex_design_names() { return design_names(); }

}  // namespace lockstep::scenario
