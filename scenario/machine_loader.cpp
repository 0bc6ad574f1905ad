#include "scenario/machine_loader.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
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

namespace lockstep::scenario {

namespace {

namespace mc = sim::machine;

constexpr int kMaxCpus = 1024;
constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
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

void load_costs(const yaml::Map& m, sim::FlatCosts& costs) {
  for (const CostField& f : kCostFields) cost_of(costs, f) = m.unsigned_or(f.name, f.min, kNoLimit, cost_of(costs, f));
}

// --- keys

// The shape of the flat machine; a modelled machine's shape is its preset's.
constexpr std::array<std::string_view, 2> kFlatKeys{"cpus", "nodes"};

struct RealField {
  std::string_view name;
  double mc::MachineConfig::*member;
};
constexpr std::array<RealField, 5> kModelReals{{
    {"uncore_ns", &mc::MachineConfig::uncore_ns},
    {"c2c_same_package_ns", &mc::MachineConfig::c2c_same_package_ns},
    {"remote_cache_ns", &mc::MachineConfig::remote_cache_ns},
    {"probe_ns", &mc::MachineConfig::probe_ns},
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

constexpr std::array<std::string_view, 8> kModelSections{"probe_filter", "inclusive_llc", "coherence",   "line_states",
                                                         "dram",         "caches",        "links",       "board_links"};
constexpr std::array<std::string_view, 2> kCoherenceNames{"broadcast", "home_snoop"};
static_assert(static_cast<int>(mc::Coherence::broadcast) == 0 && static_cast<int>(mc::Coherence::home_snoop) == 1);
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

std::vector<std::string_view> machine_keys() {
  std::vector<std::string_view> keys{"preset", "memory_policy"};
  keys.insert(keys.end(), kFlatKeys.begin(), kFlatKeys.end());
  const std::vector<std::string_view> model = model_keys();
  keys.insert(keys.end(), model.begin(), model.end());
  for (const CostField& f : kCostFields) keys.push_back(f.name);
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
  for (std::string_view key : model_keys()) {
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

void load_cache(const yaml::Source& src, const YAML::Node& node, mc::CacheLevel& level) {
  const std::string section = "caches." + level.name;
  const yaml::Map m(src, node, section, {"size_bytes", "ways", "hit_ns", "replacement"});
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

void load_caches(const yaml::Source& src, const YAML::Node& node, mc::MachineConfig& config) {
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
  if (config.packages > sim::kMaxNodes || config.cpus() > kMaxCpus) {
    src.fail(preset, fmt::format("machine preset '{}' has {} packages and {} CPUs; the simulator supports {} and {}",
                                 name, config.packages, config.cpus(), sim::kMaxNodes, kMaxCpus));
  }
  return config;
}

void load_model(const yaml::Map& m, MachineSpec& machine) {
  const yaml::Source& src = m.source();
  mc::MachineConfig config = make_config(src, m.required("preset"), machine.preset);
  for (std::string_view key : kFlatKeys) {
    if (const auto at = m.key_node(key)) {
      src.fail(*at, fmt::format("{} applies to the flat preset only: {} has {} CPUs in {} nodes, set by its shape", key,
                                machine.preset, config.cpus(), config.packages));
    }
  }
  for (const RealField& f : kModelReals) config.*f.member = m.real_or(f.name, 0, kMaxNs, config.*f.member);
  for (const CountField& f : kModelCounts)
    config.*f.member = static_cast<std::uint32_t>(m.unsigned_or(f.name, f.lo, f.hi, config.*f.member));
  config.probe_filter = m.boolean_or("probe_filter", config.probe_filter);
  config.inclusive_llc = m.boolean_or("inclusive_llc", config.inclusive_llc);
  if (const auto coherence = m.get("coherence"))
    config.coherence = static_cast<mc::Coherence>(yaml::choice(src, *coherence, "coherence", kCoherenceNames));
  if (const auto states = m.get("line_states"))
    config.line_states = static_cast<mc::LineStates>(yaml::choice(src, *states, "line_states", kLineStateNames));
  if (const auto dram = m.get("dram")) load_dram(src, *dram, config.dram);
  if (const auto caches = m.get("caches")) load_caches(src, *caches, config);
  // Every link first, then those between boards, whatever the order in the file.
  if (const auto links = m.get("links")) load_links(src, *links, config, false);
  if (const auto links = m.get("board_links")) load_links(src, *links, config, true);
  load_costs(m, config.os);
  try {
    machine.node_of_cpu = mc::Topology(config).node_of_cpu();
  } catch (const std::invalid_argument& e) {
    src.fail(m.node(), fmt::format("machine {}: {}", machine.preset, e.what()));
  }
  machine.costs = config.os;
  machine.model = std::move(config);
}

void load_preset(const yaml::Source& src, const yaml::Map& m, MachineSpec& machine) {
  const std::optional<YAML::Node> node = m.get("preset");
  if (!node) return;
  machine.preset = yaml::scalar(src, *node, "preset");
  const std::vector<std::string> known = machine_presets();
  if (std::find(known.begin(), known.end(), machine.preset) == known.end())
    src.fail(*node, fmt::format("unknown machine preset '{}' (known presets: {})", machine.preset, yaml::join(known)));
}

}  // namespace

MachineSpec load_machine(const yaml::Map& root) {
  MachineSpec machine;
  const std::optional<YAML::Node> node = root.get("machine");
  if (!node) {
    machine.node_of_cpu.assign(2, 0);
    return machine;
  }
  const yaml::Map m(root.source(), *node, "machine", machine_keys());
  load_preset(root.source(), m, machine);
  if (const auto policy = m.get("memory_policy")) {
    constexpr std::array<std::string_view, 3> kPolicies{"as_requested", "node0", "interleave"};
    machine.memory_policy =
        static_cast<sim::MemoryPolicy>(yaml::choice(root.source(), *policy, "memory_policy", kPolicies));
  }
  if (machine.preset == "flat") {
    load_flat(m, machine);
  } else {
    load_model(m, machine);
  }
  return machine;
}

std::vector<std::string> machine_presets() {
  std::vector<std::string> names{"flat"};
  for (std::string& name : sim::machine::preset_names()) names.push_back(std::move(name));
  return names;
}

}  // namespace lockstep::scenario
