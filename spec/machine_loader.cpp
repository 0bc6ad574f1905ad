#include "spec/machine_loader.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/exec/memory.hpp"
#include "sim/machine/presets.hpp"
#include "sim/machine/topology.hpp"
#include "spec/host_calibration.hpp"
#include "spec/yaml_document.hpp"

namespace lockstep::scenario {

namespace {

namespace mc = sim::machine;

constexpr int kMaxCpus = 1024;
// Limits on overrides: beyond them a value is a typo, not an experiment.
constexpr double kMaxNs = 1e9;  // one second
constexpr double kMinBytesPerNs = 0.001;
constexpr double kMaxBytesPerNs = 1e6;
constexpr std::uint64_t kMaxMessageBytes = 4096;
constexpr std::uint64_t kMaxStoreBufferEntries = 1024;
constexpr std::uint64_t kMaxBanks = 1024;
constexpr std::uint64_t kMaxRowBytes = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxCacheBytes = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxWays = 1024;
constexpr std::uint32_t kMaxPlruWays = 32;  // the model keeps a set's tree in one word

// A path in a file, relative to that file's directory.
std::string resolve_beside(const std::string& file, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
}

// --- OS and flat costs

// Cost overrides are named as the FlatCosts members; the work_ns entries by their Work kind.
struct CostField {
  std::string_view name;
  std::uint64_t sim::FlatCosts::*member;
  int work;  // index into work_ns when member is null
  std::uint64_t min;
};

constexpr std::array<CostField, 14> kCostFields{{
    {"load_ns", &sim::FlatCosts::load_ns, -1, 0},
    {"store_ns", &sim::FlatCosts::store_ns, -1, 0},
    {"rmw_ns", &sim::FlatCosts::rmw_ns, -1, 0},
    {"plain_ns", &sim::FlatCosts::plain_ns, -1, 0},
    {"fence_ns", &sim::FlatCosts::fence_ns, -1, 0},
    {"pause_ns", &sim::FlatCosts::pause_ns, -1, 0},
    {"wake_ns", &sim::FlatCosts::wake_ns, -1, 0},
    {"unpark_ns", &sim::FlatCosts::unpark_ns, -1, 0},
    {"context_switch_ns", &sim::FlatCosts::context_switch_ns, -1, 0},
    {"time_slice_ns", &sim::FlatCosts::time_slice_ns, -1, 1},  // a zero slice would never run anything
    {"hash_ns", nullptr, static_cast<int>(Work::hash), 0},
    {"syscall_entry_ns", nullptr, static_cast<int>(Work::syscall_entry), 0},
    {"syscall_exit_ns", nullptr, static_cast<int>(Work::syscall_exit), 0},
    {"compute_ns", nullptr, static_cast<int>(Work::compute), 0},
}};
static_assert(kWorkKinds == 4, "a new Work kind needs its *_ns override in kCostFields");

std::uint64_t& cost_of(sim::FlatCosts& costs, const CostField& field) {
  if (field.member != nullptr) return costs.*field.member;
  return costs.work_ns[static_cast<std::size_t>(field.work)];
}

// The idle loop's costs (docs/os.md, "Adaptive idle"), named as the IdleCosts members: each
// preset's are a source or a [guess], and an experiment may change them.
struct IdleField {
  std::string_view name;
  std::uint64_t sim::IdleCosts::*ns;  // or
  std::uint32_t sim::IdleCosts::*count;
  std::uint64_t min;
  std::uint64_t max;
};
constexpr std::array<IdleField, 8> kIdleFields{{
    {"ipi_send_ns", &sim::IdleCosts::ipi_send_ns, nullptr, 0, static_cast<std::uint64_t>(kMaxNs)},
    {"hlt_exit_ns", &sim::IdleCosts::hlt_exit_ns, nullptr, 0, static_cast<std::uint64_t>(kMaxNs)},
    {"mwait_exit_ns", &sim::IdleCosts::mwait_exit_ns, nullptr, 0, static_cast<std::uint64_t>(kMaxNs)},
    {"spin_detect_ns", &sim::IdleCosts::spin_detect_ns, nullptr, 0, static_cast<std::uint64_t>(kMaxNs)},
    {"tick_ns", &sim::IdleCosts::tick_ns, nullptr, 1, static_cast<std::uint64_t>(kMaxNs)},  // ticks divide time
    {"spin_iterations", nullptr, &sim::IdleCosts::spin_iterations, 0, std::numeric_limits<std::uint32_t>::max()},
    {"spin_switches", nullptr, &sim::IdleCosts::spin_switches, 0, std::numeric_limits<std::uint32_t>::max()},
    {"mwait_switches", nullptr, &sim::IdleCosts::mwait_switches, 0, std::numeric_limits<std::uint32_t>::max()},
}};

void load_idle_costs(const yaml::Source& src, const YAML::Node& node, sim::IdleCosts& idle) {
  std::vector<std::string_view> keys;
  for (const IdleField& f : kIdleFields) keys.push_back(f.name);
  const yaml::Map m(src, node, "idle_costs", keys);
  for (const IdleField& f : kIdleFields) {
    if (f.ns != nullptr) {
      idle.*f.ns = m.unsigned_or(f.name, f.min, f.max, idle.*f.ns);
    } else {
      idle.*f.count = static_cast<std::uint32_t>(m.unsigned_or(f.name, f.min, f.max, idle.*f.count));
    }
  }
}

void load_costs(const yaml::Map& m, sim::FlatCosts& costs) {
  for (const CostField& f : kCostFields)
    cost_of(costs, f) = m.unsigned_or(f.name, f.min, static_cast<std::uint64_t>(kMaxNs), cost_of(costs, f));
  if (const auto idle = m.get("idle_costs")) load_idle_costs(m.source(), *idle, costs.idle);
}

// --- keys

// The shape of the flat machine; a modelled machine's shape is its preset's.
constexpr std::array<std::string_view, 2> kFlatKeys{"cpus", "nodes"};

struct RealField {
  std::string_view name;
  double mc::MachineConfig::*member;
};
constexpr std::array<RealField, 7> kModelReals{{
    {"uncore_ns", &mc::MachineConfig::uncore_ns},
    {"c2c_same_package_ns", &mc::MachineConfig::c2c_same_package_ns},
    {"c2c_clean_same_package_ns", &mc::MachineConfig::c2c_clean_same_package_ns},
    {"remote_cache_ns", &mc::MachineConfig::remote_cache_ns},
    {"probe_ns", &mc::MachineConfig::probe_ns},
    {"locked_ns", &mc::MachineConfig::locked_ns},
    {"smt_work_factor", &mc::MachineConfig::smt_work_factor},
}};

struct CountField {
  std::string_view name;
  std::uint32_t mc::MachineConfig::*member;
  std::uint64_t lo;
  std::uint64_t hi;
};
constexpr std::array<CountField, 3> kModelCounts{{
    {"request_bytes", &mc::MachineConfig::request_bytes, 1, kMaxMessageBytes},
    {"data_bytes", &mc::MachineConfig::data_bytes, mc::kLineBytes, kMaxMessageBytes},  // it carries a line
    {"store_buffer_entries", &mc::MachineConfig::store_buffer_entries, 1, kMaxStoreBufferEntries},
}};

constexpr std::array<std::string_view, 13> kModelSections{
    "probe_filter",      "inclusive_llc", "memory_directory", "coherence",
    "line_states",       "dram",          "caches",           "links",
    "board_links",       "c2c_legs",      "migratory_reads",  "locked_before_line",
    "transfer_jitter_ns"};
constexpr std::array<std::string_view, 3> kCoherenceNames{"broadcast", "home_snoop", "home_agent"};
static_assert(static_cast<int>(mc::Coherence::broadcast) == 0 && static_cast<int>(mc::Coherence::home_snoop) == 1 &&
              static_cast<int>(mc::Coherence::home_agent) == 2);
constexpr std::array<std::string_view, 3> kLineStateNames{"mesi", "mesif", "moesi"};
static_assert(static_cast<int>(mc::LineStates::mesi) == 0 && static_cast<int>(mc::LineStates::mesif) == 1 &&
              static_cast<int>(mc::LineStates::moesi) == 2);
constexpr std::array<std::string_view, 2> kReplacementNames{"lru", "plru"};
static_assert(static_cast<int>(mc::Replacement::lru) == 0 && static_cast<int>(mc::Replacement::plru) == 1);

std::vector<std::string_view> model_keys() {
  std::vector<std::string_view> keys;
  keys.reserve(kModelReals.size() + kModelCounts.size() + kModelSections.size());
  for (const RealField& f : kModelReals) keys.push_back(f.name);
  for (const CountField& f : kModelCounts) keys.push_back(f.name);
  keys.insert(keys.end(), kModelSections.begin(), kModelSections.end());
  return keys;
}

// A modelled machine's shape; a machine file states it (`lockstep calibrate` writes the host's).
constexpr std::array<std::string_view, 3> kShapeKeys{"packages", "cores_per_package", "threads_per_core"};

std::vector<std::string_view> machine_map_keys() {
  std::vector<std::string_view> keys{"preset", "file", "name", "memory_policy"};
  keys.insert(keys.end(), kShapeKeys.begin(), kShapeKeys.end());
  keys.insert(keys.end(), kFlatKeys.begin(), kFlatKeys.end());
  const std::vector<std::string_view> model = model_keys();
  keys.insert(keys.end(), model.begin(), model.end());
  for (const CostField& f : kCostFields) keys.push_back(f.name);
  keys.emplace_back("idle_costs");
  return keys;
}

// Where to report a mistake that involves several keys: the first of them the scenario sets.
YAML::Node place_of(const yaml::Map& m, std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys)
    if (std::optional<YAML::Node> value = m.get(key)) return *value;
  return m.node();
}

// --- the flat machine

void load_flat(const yaml::Map& m, MachineSpec& machine) {
  const yaml::Source& src = m.source();
  std::vector<std::string_view> modelled = model_keys();
  modelled.insert(modelled.end(), kShapeKeys.begin(), kShapeKeys.end());
  modelled.push_back("name");
  for (std::string_view key : modelled) {
    if (const auto at = m.key_node(key))
      src.fail(*at, fmt::format("{} applies to modelled machines, not to the flat preset (see docs/machines.md)", key));
  }
  const auto cpus = static_cast<int>(m.integer_or("cpus", 1, kMaxCpus, 2));
  const auto nodes = static_cast<int>(m.integer_or("nodes", 1, sim::kMaxNodes, 1));
  // A node without CPUs could not be told apart from a missing one in node_of_cpu.
  if (nodes > cpus) {
    src.fail(*m.get("nodes"),
             fmt::format("nodes: {} nodes need at least {} cpus (the machine has {})", nodes, nodes, cpus));
  }
  for (int cpu = 0; cpu < cpus; ++cpu) machine.node_of_cpu.push_back(cpu * nodes / cpus);
  load_costs(m, machine.costs);
}

// --- a modelled machine's overrides

void load_dram(const yaml::Source& src, const YAML::Node& node, mc::Dram& d) {
  const yaml::Map m(
      src, node, "dram",
      {"latency_ns", "open_row_saving_ns", "row_bytes", "banks", "refresh_interval_ns", "refresh_busy_ns"});
  d.latency_ns = m.real_or("latency_ns", 0, kMaxNs, d.latency_ns);
  d.open_row_saving_ns = m.real_or("open_row_saving_ns", 0, kMaxNs, d.open_row_saving_ns);
  d.row_bytes = m.unsigned_or("row_bytes", mc::kLineBytes, kMaxRowBytes, d.row_bytes);
  d.banks = static_cast<std::uint32_t>(m.unsigned_or("banks", 1, kMaxBanks, d.banks));
  d.refresh_interval_ns = m.real_or("refresh_interval_ns", 1, kMaxNs, d.refresh_interval_ns);
  d.refresh_busy_ns = m.real_or("refresh_busy_ns", 0, kMaxNs, d.refresh_busy_ns);
  if (d.open_row_saving_ns > d.latency_ns) {
    src.fail(place_of(m, {"open_row_saving_ns", "latency_ns"}),
             fmt::format("dram: open_row_saving_ns ({}) exceeds latency_ns ({}): a row hit would take no time",
                         d.open_row_saving_ns, d.latency_ns));
  }
  if (d.refresh_busy_ns >= d.refresh_interval_ns) {
    src.fail(place_of(m, {"refresh_busy_ns", "refresh_interval_ns"}),
             fmt::format("dram: refresh_busy_ns ({}) must be less than refresh_interval_ns ({}), or memory would "
                         "always be refreshing",
                         d.refresh_busy_ns, d.refresh_interval_ns));
  }
}

// One level's fields; `listed`: an entry of the list form, which also names the level and its scope.
void load_cache(const yaml::Source& src, const YAML::Node& node, mc::CacheLevel& level, bool listed = false) {
  const std::string section = "caches." + level.name;
  std::vector<std::string_view> keys{"size_bytes", "ways", "hit_ns", "replacement"};
  if (listed) keys.insert(keys.end(), {"name", "scope"});
  const yaml::Map m(src, node, section, keys);
  level.size_bytes = m.unsigned_or("size_bytes", mc::kLineBytes, kMaxCacheBytes, level.size_bytes);
  level.ways = static_cast<std::uint32_t>(m.unsigned_or("ways", 1, kMaxWays, level.ways));
  level.hit_ns = m.real_or("hit_ns", 0, kMaxNs, level.hit_ns);
  if (const auto replacement = m.get("replacement"))
    level.replacement = static_cast<mc::Replacement>(yaml::choice(src, *replacement, "replacement", kReplacementNames));
  // The model indexes sets by the low bits of the line address (sim/machine/cache.cpp).
  const std::uint64_t set_bytes = std::uint64_t{mc::kLineBytes} * level.ways;
  if (level.size_bytes % set_bytes != 0 || !std::has_single_bit(level.size_bytes / set_bytes)) {
    src.fail(place_of(m, {"size_bytes", "ways"}),
             fmt::format("{}: {} bytes in {} ways of {}-byte lines do not make a power-of-two number of sets", section,
                         level.size_bytes, level.ways, mc::kLineBytes));
  }
  if (level.replacement == mc::Replacement::plru && (!std::has_single_bit(level.ways) || level.ways > kMaxPlruWays)) {
    src.fail(place_of(m, {"replacement", "ways"}),
             fmt::format("{}: pseudo-LRU needs a power-of-two number of ways, at most {} (it has {})", section,
                         kMaxPlruWays, level.ways));
  }
}

// `caches` as a map overrides the named levels of the machine; as a list it states the whole
// hierarchy (a machine file describes a host's caches this way): each level's name, size_bytes,
// ways, scope and hit_ns, in the order the model allows.
void load_cache_list(const yaml::Source& src, const YAML::Node& node, mc::MachineConfig& config) {
  constexpr std::array<std::string_view, 2> kScopes{"core", "package"};
  static_assert(static_cast<int>(mc::CacheScope::core) == 0 && static_cast<int>(mc::CacheScope::package) == 1);
  if (node.size() == 0 || node.size() > 3)
    src.fail(node, fmt::format("caches: a machine has one to three cache levels (this list has {})", node.size()));
  std::vector<mc::CacheLevel> levels;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    const yaml::Map m(src, entry, "caches", {"name", "size_bytes", "ways", "hit_ns", "scope", "replacement"});
    mc::CacheLevel level;
    level.name = yaml::identifier(src, m.required("name"), "caches: name");
    for (const mc::CacheLevel& other : levels)
      if (other.name == level.name) src.fail(m.required("name"), fmt::format("caches: {} is listed twice", level.name));
    level.scope = static_cast<mc::CacheScope>(yaml::choice(src, m.required("scope"), "scope", kScopes));
    // Required: a level's size and associativity are what it is; defaults would hide a typo.
    m.required("size_bytes");
    m.required("ways");
    m.required("hit_ns");
    load_cache(src, entry, level, true);
    // The model's hierarchy (sim/machine/memory_system.cpp): a private first level, an optional
    // private second, and an optional shared last level.
    const bool last = i + 1 == node.size();
    const bool allowed = level.scope == mc::CacheScope::core ? i <= 1 : last && i >= 1;
    if (!allowed) {
      src.fail(m.required("scope"),
               fmt::format("caches: {} cannot be {} here: the model has a private L1, an optional private L2 and an "
                           "optional last level shared by the package",
                           level.name, level.scope == mc::CacheScope::core ? "private" : "shared"));
    }
    levels.push_back(std::move(level));
  }
  config.caches = std::move(levels);
}

void load_caches(const yaml::Source& src, const YAML::Node& node, mc::MachineConfig& config) {
  if (node.IsSequence()) {
    load_cache_list(src, node, config);
    return;
  }
  std::vector<std::string_view> names;
  for (const mc::CacheLevel& level : config.caches) names.push_back(level.name);
  yaml::require_map(src, node, "caches");
  for (const auto& pair : node) {
    const YAML::Node& key = pair.first;
    if (key.IsScalar() && std::find(names.begin(), names.end(), key.Scalar()) == names.end()) {
      src.fail(key,
               fmt::format("caches: {} has no cache '{}' (it has {})", config.name, key.Scalar(), yaml::join(names)));
    }
  }
  const yaml::Map m(src, node, "caches", names);
  for (mc::CacheLevel& level : config.caches)
    if (const auto value = m.get(level.name)) load_cache(src, *value, level);
}

int board_of(const mc::MachineConfig& config, int package) {
  return config.board_of_package.empty() ? 0 : config.board_of_package[static_cast<std::size_t>(package)];
}

// `links` sets every link; `board_links` only those whose ends are on different boards.
void load_links(const yaml::Source& src, const YAML::Node& node, mc::MachineConfig& config, bool between_boards) {
  const std::string_view section = between_boards ? "board_links" : "links";
  const yaml::Map m(src, node, std::string(section), {"latency_ns", "bandwidth_bytes_per_ns"});
  int matched = 0;
  for (mc::Link& link : config.links) {
    if (between_boards && board_of(config, link.a) == board_of(config, link.b)) continue;
    link.latency_ns = m.real_or("latency_ns", 0, kMaxNs, link.latency_ns);
    link.bandwidth_bytes_per_ns =
        m.real_or("bandwidth_bytes_per_ns", kMinBytesPerNs, kMaxBytesPerNs, link.bandwidth_bytes_per_ns);
    ++matched;
  }
  if (matched == 0) {
    src.fail(node, between_boards ? fmt::format("board_links: {} has no links between boards", config.name)
                                  : fmt::format("links: {} has no links (it has one package)", config.name));
  }
}

mc::MachineConfig make_config(const yaml::Source& src, const YAML::Node& preset, const std::string& name) {
  mc::MachineConfig config;
  try {
    config = mc::make_preset(name);
  } catch (const std::exception& e) {  // `host` reads sysfs
    src.fail(preset, fmt::format("machine preset '{}': {}", name, e.what()));
  }
  return config;
}

void require_simulator_limits(const yaml::Source& src, const YAML::Node& at, const mc::MachineConfig& config) {
  if (config.packages > sim::kMaxNodes || config.cpus() > kMaxCpus) {
    src.fail(at, fmt::format("machine '{}' has {} packages and {} CPUs; the simulator supports {} and {}", config.name,
                             config.packages, config.cpus(), sim::kMaxNodes, kMaxCpus));
  }
}

// A modelled machine's shape. A new package count rebuilds the links: every pair of packages
// joined directly, with the numbers of the machine's first link (as host_topology.cpp does for
// a host, whose interconnect sysfs does not describe [guess]); the packages share one board,
// and each is a node with its memory (no hubs).
void load_shape(const yaml::Map& m, mc::MachineConfig& config) {
  const auto packages = static_cast<int>(m.integer_or("packages", 1, sim::kMaxNodes, config.packages));
  config.cores_per_package = static_cast<int>(m.integer_or("cores_per_package", 1, kMaxCpus, config.cores_per_package));
  config.threads_per_core = static_cast<int>(m.integer_or("threads_per_core", 1, 8, config.threads_per_core));
  if (packages != config.packages) {
    const mc::Link proto = config.links.empty() ? mc::Link{} : config.links.front();
    config.links.clear();
    config.board_of_package.clear();
    config.boards = 1;
    config.packages_per_node = 1;
    config.node_hubs = false;
    for (int a = 0; a < packages; ++a) {
      for (int b = a + 1; b < packages; ++b) {
        mc::Link link = proto;
        link.a = a;
        link.b = b;
        config.links.push_back(link);
      }
    }
    config.packages = packages;
  }
  if (config.threads_per_core == 1) config.smt_work_factor = 1.0;  // no sibling to slow a thread down
  if (config.cpus() > kMaxCpus) {
    m.source().fail(
        place_of(m, {"packages", "cores_per_package", "threads_per_core"}),
        fmt::format("machine: {} packages of {} cores of {} threads are {} CPUs; the simulator supports {}",
                    config.packages, config.cores_per_package, config.threads_per_core, config.cpus(), kMaxCpus));
  }
}

// c2c_legs: {request, forward}, fractions of a transfer within a package; the data leg is
// what is left, so the two may not add up to more than 1.
void load_c2c_legs(const yaml::Source& src, const YAML::Node& node, mc::MachineConfig& config) {
  const yaml::Map m(src, node, "c2c_legs", {"request", "forward"});
  mc::MachineConfig::C2cLegs legs{1.0 / 3, 1.0 / 3};
  if (config.c2c_legs) legs = *config.c2c_legs;
  legs.request = m.real_or("request", 0, 1, legs.request);
  legs.forward = m.real_or("forward", 0, 1, legs.forward);
  if (legs.request + legs.forward > 1) {
    src.fail(place_of(m, {"forward", "request"}),
             fmt::format("c2c_legs: request ({}) and forward ({}) add up to more than the whole transfer", legs.request,
                         legs.forward));
  }
  config.c2c_legs = legs;
}

void load_model(const yaml::Map& m, MachineSpec& machine, mc::MachineConfig config) {
  const yaml::Source& src = m.source();
  for (std::string_view key : kFlatKeys) {
    if (const auto at = m.key_node(key)) {
      src.fail(*at, fmt::format("{} applies to the flat preset only: {} has {} CPUs in {} nodes, set by its shape", key,
                                config.name, config.cpus(), config.packages));
    }
  }
  if (const auto name = m.get("name")) config.name = yaml::scalar(src, *name, "name");
  load_shape(m, config);
  for (const RealField& f : kModelReals) config.*f.member = m.real_or(f.name, 0, kMaxNs, config.*f.member);
  for (const CountField& f : kModelCounts)
    config.*f.member = static_cast<std::uint32_t>(m.unsigned_or(f.name, f.lo, f.hi, config.*f.member));
  config.probe_filter = m.boolean_or("probe_filter", config.probe_filter);
  config.inclusive_llc = m.boolean_or("inclusive_llc", config.inclusive_llc);
  config.memory_directory = m.boolean_or("memory_directory", config.memory_directory);
  config.migratory_reads = m.boolean_or("migratory_reads", config.migratory_reads);
  config.locked_before_line = m.real_or("locked_before_line", 0, 1, config.locked_before_line);
  config.transfer_jitter_ns = m.real_or("transfer_jitter_ns", 0, kMaxNs, config.transfer_jitter_ns);
  if (const auto coherence = m.get("coherence"))
    config.coherence = static_cast<mc::Coherence>(yaml::choice(src, *coherence, "coherence", kCoherenceNames));
  if (const auto states = m.get("line_states"))
    config.line_states = static_cast<mc::LineStates>(yaml::choice(src, *states, "line_states", kLineStateNames));
  if (const auto dram = m.get("dram")) load_dram(src, *dram, config.dram);
  if (const auto legs = m.get("c2c_legs")) load_c2c_legs(src, *legs, config);
  if (const auto caches = m.get("caches")) load_caches(src, *caches, config);
  // Every link first, then those between boards, whatever the order in the file.
  if (const auto links = m.get("links")) load_links(src, *links, config, false);
  if (const auto links = m.get("board_links")) load_links(src, *links, config, true);
  load_costs(m, config.os);
  try {
    machine.node_of_cpu = mc::Topology(config).node_of_cpu();
  } catch (const std::invalid_argument& e) {
    src.fail(m.node(), fmt::format("machine {}: {}", config.name, e.what()));
  }
  machine.costs = config.os;
  machine.model = std::move(config);
}

std::string load_preset(const yaml::Source& src, const YAML::Node& node) {
  std::string preset = yaml::scalar(src, node, "preset");
  const std::vector<std::string> known = machine_presets();
  if (std::find(known.begin(), known.end(), preset) == known.end())
    src.fail(node, fmt::format("unknown machine preset '{}' (known presets: {})", preset, yaml::join(known)));
  return preset;
}

// A machine map: the machine it starts from (a preset, the host's last calibration, or a
// machine file), then its overrides. `in_file`: the map of a machine file, which names a
// preset other than host (a calibration is itself a machine file).
MachineSpec load_machine_map(const yaml::Source& src, const YAML::Node& node, bool in_file) {
  MachineSpec machine;
  const yaml::Map m(src, node, "machine", machine_map_keys());
  const std::optional<YAML::Node> preset = m.get("preset");
  const std::optional<YAML::Node> file = m.get("file");
  if (preset && file) src.fail(*m.key_node("file"), "machine: give a preset or a file, not both");
  if (file && in_file) src.fail(*file, "machine: a machine file cannot name another machine file");
  std::optional<mc::MachineConfig> base;
  if (file) {
    MachineFile loaded =
        load_machine_file(resolve_beside(src.file(), yaml::scalar(src, *file, "file")), src.where(*file));
    machine = std::move(loaded.machine);
    base = machine.model;
  } else if (preset) {
    machine.preset = load_preset(src, *preset);
    if (machine.preset == "host") {
      if (in_file) src.fail(*preset, "machine: a machine file starts from a named preset, not from host");
      HostMachine host = calibrated_host_machine();
      base = std::move(host.config);
      machine.calibration = std::move(host.calibration);
      machine.calibration_note = std::move(host.note);
    } else if (machine.preset != "flat") {
      base = make_config(src, *preset, machine.preset);
    }
  } else if (m.has("name") || std::any_of(kShapeKeys.begin(), kShapeKeys.end(), [&m](auto k) { return m.has(k); })) {
    src.fail(m.node(), "machine: a modelled machine starts from a preset or a file (`preset: NAME` or `file: PATH`)");
  }
  if (const auto policy = m.get("memory_policy")) {
    constexpr std::array<std::string_view, 3> kPolicies{"as_requested", "node0", "interleave"};
    machine.memory_policy = static_cast<sim::MemoryPolicy>(yaml::choice(src, *policy, "memory_policy", kPolicies));
  }
  if (!base) {
    load_flat(m, machine);
    return machine;
  }
  require_simulator_limits(src, preset ? *preset : file ? *file : m.node(), *base);
  load_model(m, machine, std::move(*base));
  require_simulator_limits(src, m.node(), *machine.model);
  return machine;
}

}  // namespace

MachineSpec load_machine(const yaml::Map& root) {
  const std::optional<YAML::Node> node = root.get("machine");
  if (!node) {
    MachineSpec machine;
    machine.node_of_cpu.assign(2, 0);
    return machine;
  }
  return load_machine_map(root.source(), *node, false);
}

MachineFile load_machine_file(const std::string& path, const std::string& named_at) {
  const std::string text = [&] {
    try {
      return yaml::read_document_text(path);
    } catch (const ScenarioError& e) {
      throw ScenarioError(named_at.empty() ? e.what() : fmt::format("{}: machine file: {}", named_at, e.what()));
    }
  }();
  const yaml::Source src(path);
  MachineFile out;
  try {
    const YAML::Node doc = yaml::parse_document(src, text, "machine file");
    const yaml::Map root(src, doc, "machine file", {"calibration", "machine"});
    out.machine = load_machine_map(src, root.required("machine"), true);
    if (!out.machine.model)
      src.fail(root.required("machine"),
               "machine file: describes a modelled machine (the flat preset has no file form)");
    if (const auto calibration = root.get("calibration"))
      out.machine.calibration = load_calibration_info(src, *calibration);
    out.machine.machine_file = path;
    if (out.machine.calibration) out.machine.calibration->file = path;
  } catch (const YAML::Exception& e) {
    src.fail_at(src.where(e.mark), e.msg);
  }
  return out;
}

std::vector<std::string> machine_presets() {
  std::vector<std::string> names{"flat"};
  for (std::string& name : sim::machine::preset_names()) names.push_back(std::move(name));
  return names;
}

std::vector<std::string_view> machine_keys() { return machine_map_keys(); }

}  // namespace lockstep::scenario
