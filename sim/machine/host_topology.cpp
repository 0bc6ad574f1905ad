#include "sim/machine/host_topology.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "measure/sysfs.hpp"
#include "sim/machine/presets.hpp"

namespace lockstep::sim::machine {

namespace {

namespace fs = std::filesystem;
using measure::HostCache;
using measure::parse_cpulist;
using measure::parse_int;
using measure::read_caches;
using measure::read_text;
using measure::required_text;

// The model's hierarchy is a private L1, an optional private L2 and an optional shared last
// level (memory_system.cpp); deeper levels (an L4 of eDRAM) are left out.
constexpr int kMaxCacheLevel = 3;
// SLIT distances: 10 is local; 21 is what two-socket Nehalem-EP and its successors report
// for the other socket, whose link latency nehalem-2s has.
constexpr int kLocalDistance = 10;
constexpr int kNehalemRemoteDistance = 21;

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

bool subset(const std::vector<int>& small, const std::vector<int>& big) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

struct HostCpu {
  int cpu = 0;
  int package = 0;
  int node = 0;
  int core = 0;  // the core's lowest online CPU: unique across dies and packages, unlike core_id
};

std::vector<int> online_cpus(const fs::path& cpu_dir) {
  if (std::optional<std::string> online = read_text(cpu_dir / "online"))
    return parse_cpulist(*online, cpu_dir / "online");
  if (!fs::is_directory(cpu_dir)) throw std::runtime_error(fmt::format("{}: cannot read", cpu_dir.string()));
  std::vector<int> cpus;  // without the file, every cpuN directory
  for (const auto& entry : fs::directory_iterator(cpu_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("cpu") && all_digits(std::string_view(name).substr(3)))
      cpus.push_back(parse_int(name.substr(3), entry.path()));
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

fs::path node_path(const fs::path& node_dir, int node) { return node_dir / fmt::format("node{}", node); }

// CPU -> node, from node*/cpulist; a kernel without NUMA has no node directory: all node 0.
std::map<int, int> nodes_of_cpus(const fs::path& node_dir) {
  std::map<int, int> out;
  if (!fs::is_directory(node_dir)) return out;
  for (const auto& entry : fs::directory_iterator(node_dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("node") || !all_digits(std::string_view(name).substr(4))) continue;
    const int node = parse_int(name.substr(4), entry.path());
    const fs::path list = entry.path() / "cpulist";
    for (int cpu : parse_cpulist(required_text(list), list)) out[cpu] = node;
  }
  return out;
}

std::vector<HostCpu> read_cpus(const fs::path& root, std::vector<std::string>& notes) {
  const fs::path cpu_dir = root / "devices/system/cpu";
  const std::vector<int> online = online_cpus(cpu_dir);
  if (online.empty()) throw std::runtime_error(fmt::format("{}: no online CPU", cpu_dir.string()));
  const std::map<int, int> node_of = nodes_of_cpus(root / "devices/system/node");
  std::vector<HostCpu> cpus;
  for (int cpu : online) {
    const fs::path topo = cpu_dir / fmt::format("cpu{}", cpu) / "topology";
    HostCpu c{cpu, 0, 0, cpu};
    const fs::path package_file = topo / "physical_package_id";
    if (std::optional<std::string> package = read_text(package_file)) {
      // -1 is what some virtual machines report for "unknown": one package.
      c.package = *package == "-1" ? 0 : parse_int(*package, package_file);
    }
    const fs::path siblings_file = topo / "thread_siblings_list";
    if (std::optional<std::string> siblings = read_text(siblings_file)) {
      for (int s : parse_cpulist(*siblings, siblings_file))
        if (std::binary_search(online.begin(), online.end(), s)) c.core = std::min(c.core, s);
    }
    if (const auto it = node_of.find(cpu); it != node_of.end()) {
      c.node = it->second;
    } else if (!node_of.empty()) {
      notes.push_back(fmt::format("CPU {} is in no NUMA node's cpulist: counted in node 0", cpu));
    }
    cpus.push_back(c);
  }
  return cpus;
}

// A NUMA domain of the model (one package, one node): the host CPUs of each of its cores.
struct Domain {
  int key = 0;                            // the host package or node it stands for
  int node = -1;                          // the host node whose memory it has, when it has exactly one
  std::map<int, std::vector<int>> cores;  // core (lowest CPU) -> its CPUs, ascending
};

// Packages are the model's NUMA nodes. A host with more nodes than packages, each node inside
// one package (sub-NUMA clustering, AMD's NPS), is modelled with one package per node, since
// what the model's package stands for is memory locality; otherwise by its packages.
std::vector<Domain> group_domains(const std::vector<HostCpu>& cpus, std::vector<std::string>& notes) {
  std::map<int, std::set<int>> packages_of_node;
  std::map<int, std::set<int>> nodes_of_package;
  for (const HostCpu& c : cpus) {
    packages_of_node[c.node].insert(c.package);
    nodes_of_package[c.package].insert(c.node);
  }
  const bool nodes_inside_packages =
      std::all_of(packages_of_node.begin(), packages_of_node.end(), [](const auto& n) { return n.second.size() == 1; });
  const bool by_node = packages_of_node.size() > nodes_of_package.size() && nodes_inside_packages;
  if (by_node) {
    notes.push_back(fmt::format("{} NUMA nodes in {} packages: each node is modelled as a package",
                                packages_of_node.size(), nodes_of_package.size()));
  } else if (packages_of_node.size() != nodes_of_package.size()) {
    notes.push_back(fmt::format("{} NUMA nodes for {} packages: the model gives each package its own node",
                                packages_of_node.size(), nodes_of_package.size()));
  }
  std::map<int, Domain> domains;
  for (const HostCpu& c : cpus) {
    Domain& d = domains[by_node ? c.node : c.package];
    d.key = by_node ? c.node : c.package;
    d.cores[c.core].push_back(c.cpu);
  }
  std::vector<Domain> out;
  for (auto& [key, d] : domains) {
    const std::set<int>& nodes = by_node ? std::set<int>{key} : nodes_of_package[key];
    if (nodes.size() == 1 && (by_node || packages_of_node[*nodes.begin()].size() == 1)) d.node = *nodes.begin();
    out.push_back(std::move(d));
  }
  return out;
}

// The model's shape is regular: the smallest domain and core set it; extra CPUs are left out.
void set_shape(MachineConfig& config, const std::vector<Domain>& domains, std::vector<std::string>& notes) {
  std::size_t cores = domains.front().cores.size();
  std::size_t threads = domains.front().cores.begin()->second.size();
  bool uneven = false;
  for (const Domain& d : domains) {
    uneven = uneven || d.cores.size() != cores;
    cores = std::min(cores, d.cores.size());
    for (const auto& [core, cpus] : d.cores) {
      uneven = uneven || cpus.size() != threads;
      threads = std::min(threads, cpus.size());
    }
  }
  if (uneven) {
    notes.push_back(
        fmt::format("packages or cores differ in size: modelled as {} cores of {} threads each, "
                    "leaving the other CPUs out",
                    cores, threads));
  }
  config.boards = 1;
  config.packages = static_cast<int>(domains.size());
  config.cores_per_package = static_cast<int>(cores);
  config.threads_per_core = static_cast<int>(threads);
}

// Model CPU t * cores + d * cores_per_package + c is thread t of core c of domain d.
std::vector<int> map_cpus(const MachineConfig& config, const std::vector<Domain>& domains) {
  std::vector<int> out;
  for (int t = 0; t < config.threads_per_core; ++t) {
    for (const Domain& d : domains) {
      auto core = d.cores.begin();
      for (int c = 0; c < config.cores_per_package; ++c, ++core)
        out.push_back(core->second[static_cast<std::size_t>(t)]);
    }
  }
  return out;
}

// The model's caches have a power-of-two number of sets. When the host's geometry has not,
// keep the capacity and raise the associativity: sets = the largest power of two that divides
// the line count and leaves at least the host's ways.
void set_geometry(CacheLevel& level, std::uint64_t size_bytes, std::uint32_t host_ways,
                  std::vector<std::string>& notes) {
  const std::uint64_t lines = std::max<std::uint64_t>(size_bytes / kLineBytes, 1);
  const std::uint64_t ways = host_ways == 0 ? lines : std::min<std::uint64_t>(host_ways, lines);
  std::uint64_t sets = lines / ways;
  if (lines % ways != 0 || !std::has_single_bit(sets)) {
    sets = std::min(lines & (~lines + 1), std::bit_floor(lines / ways));
    notes.push_back(
        fmt::format("{}: {} bytes in {} ways do not make a power-of-two number of sets: modelled as "
                    "{} sets of {} ways",
                    level.name, size_bytes, host_ways, sets, lines / sets));
  }
  level.size_bytes = lines * kLineBytes;
  level.ways = static_cast<std::uint32_t>(lines / sets);
}

std::vector<CacheLevel> make_caches(const std::vector<HostCache>& host, const std::vector<int>& own_core_cpus,
                                    const std::vector<int>& own_domain_cpus, const std::vector<CacheLevel>& defaults,
                                    std::vector<std::string>& notes) {
  std::vector<CacheLevel> out;
  for (const HostCache& h : host) {
    if (h.level < 1 || h.level > kMaxCacheLevel) {
      notes.push_back(fmt::format("L{} is left out: the model has at most {} levels", h.level, kMaxCacheLevel));
      continue;
    }
    CacheLevel level = defaults[static_cast<std::size_t>(
        std::min<std::size_t>(defaults.size(), static_cast<std::size_t>(h.level)) - 1)];
    level.name = fmt::format("L{}", h.level);  // hit_ns stays nehalem-2s's: [guess] until calibrated
    set_geometry(level, h.size_bytes, h.ways, notes);
    level.scope = subset(h.shared_cpus, own_core_cpus) ? CacheScope::core : CacheScope::package;
    if (level.scope == CacheScope::package && h.shared_cpus.size() < own_domain_cpus.size()) {
      notes.push_back(fmt::format("{} is shared by {} of the package's {} CPUs: modelled as shared by all of them",
                                  level.name, h.shared_cpus.size(), own_domain_cpus.size()));
    } else if (level.scope == CacheScope::package && !subset(h.shared_cpus, own_domain_cpus)) {
      notes.push_back(fmt::format("{} is shared by {} CPUs across modelled packages of {}: each has all of it",
                                  level.name, h.shared_cpus.size(), own_domain_cpus.size()));
    }
    out.push_back(level);
  }
  // The model's hierarchy: a private first level, private middle levels, a shared last level.
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool last = i + 1 == out.size();
    CacheScope wanted = out[i].scope;
    if (i == 0 || !last) wanted = CacheScope::core;
    if (last && i >= 2) wanted = CacheScope::package;
    if (wanted != out[i].scope) {
      notes.push_back(fmt::format("{} is modelled as {}", out[i].name,
                                  wanted == CacheScope::core ? "private to each core" : "shared by the package"));
      out[i].scope = wanted;
    }
  }
  return out;
}

// Every pair of domains linked directly; the latency scaled by the SLIT distance where the
// domains are NUMA nodes that report one [guess: latency grows with distance - 10].
void add_links(MachineConfig& config, const std::vector<Domain>& domains, const fs::path& node_dir,
               const Link& defaults, std::vector<std::string>& notes) {
  if (domains.size() < 2) return;
  notes.push_back("the interconnect is not in sysfs: every pair of packages is linked directly [guess]");
  for (std::size_t a = 0; a < domains.size(); ++a) {
    std::vector<int> distances;
    if (domains[a].node >= 0) {
      const fs::path file = node_path(node_dir, domains[a].node) / "distance";
      if (std::optional<std::string> text = read_text(file)) {
        std::istringstream in(*text);
        for (int d = 0; in >> d;) distances.push_back(d);
      }
    }
    for (std::size_t b = a + 1; b < domains.size(); ++b) {
      Link link = defaults;
      link.a = static_cast<int>(a);
      link.b = static_cast<int>(b);
      const int node_b = domains[b].node;
      if (node_b >= 0 && static_cast<std::size_t>(node_b) < distances.size() &&
          distances[static_cast<std::size_t>(node_b)] > kLocalDistance) {
        link.latency_ns = defaults.latency_ns * (distances[static_cast<std::size_t>(node_b)] - kLocalDistance) /
                          (kNehalemRemoteDistance - kLocalDistance);
      }
      config.links.push_back(link);
    }
  }
}

}  // namespace

HostTopology read_host_topology(const std::string& sysfs_root) {
  const fs::path root(sysfs_root);
  HostTopology host;
  // Everything sysfs does not tell: nehalem-2s's numbers, [guess] until calibrated from native probes.
  const MachineConfig defaults = make_preset("nehalem-2s");
  host.config = defaults;
  host.config.name = "host";
  host.config.links.clear();
  host.config.board_of_package.clear();

  const std::vector<HostCpu> cpus = read_cpus(root, host.notes);
  const std::vector<Domain> domains = group_domains(cpus, host.notes);
  set_shape(host.config, domains, host.notes);
  host.host_cpu_of_model_cpu = map_cpus(host.config, domains);

  // The caches as the first CPU sees them: scope by whom they are shared with.
  const HostCpu& first = cpus.front();
  std::vector<int> own_core;
  std::vector<int> own_domain;
  for (const Domain& d : domains) {
    if (!d.cores.contains(first.core)) continue;
    own_core = d.cores.at(first.core);
    for (const auto& [core, threads] : d.cores) own_domain.insert(own_domain.end(), threads.begin(), threads.end());
  }
  std::sort(own_domain.begin(), own_domain.end());
  const std::vector<HostCache> caches = read_caches(root / fmt::format("devices/system/cpu/cpu{}/cache", first.cpu));
  if (caches.empty()) {
    host.notes.push_back("no cache in sysfs: nehalem-2s's caches [guess]");
  } else {
    host.config.caches = make_caches(caches, own_core, own_domain, defaults.caches, host.notes);
    host.caches_from_sysfs = true;
  }
  add_links(host.config, domains, root / "devices/system/node", defaults.links.front(), host.notes);
  return host;
}

MachineConfig host_machine(const std::string& sysfs_root) { return read_host_topology(sysfs_root).config; }

}  // namespace lockstep::sim::machine
