#include "sim/machine/memory_system.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

const char* name_of(Source source) {
  switch (source) {
    case Source::l1: return "l1";
    case Source::l2: return "l2";
    case Source::l3: return "l3";
    case Source::same_package_core: return "same_package_core";
    case Source::remote_cache: return "remote_cache";
    case Source::dram_local: return "dram_local";
    case Source::dram_remote: return "dram_remote";
    case Source::upgrade: return "upgrade";
  }
  return "?";
}

namespace {
bool holds(const std::vector<int>& cores, int core) { return std::find(cores.begin(), cores.end(), core) != cores.end(); }
}  // namespace

MemorySystem::MemorySystem(const MachineConfig& config)
    : config_(config), topology_(config), links_(topology_, config_.request_bytes, config_.data_bytes) {
  if (config_.caches.empty() || config_.caches.front().scope != CacheScope::core)
    throw std::invalid_argument(fmt::format("machine {}: the first cache level must be private to a core", config_.name));
  for (std::size_t i = 0; i < config_.caches.size(); ++i) {
    const CacheLevel& level = config_.caches[i];
    const bool private_level = level.scope == CacheScope::core;
    if (i == 0) {
      for (int c = 0; c < topology_.cores(); ++c) l1_.emplace_back(level);
    } else if (i == 1 && private_level) {
      for (int c = 0; c < topology_.cores(); ++c) l2_.emplace_back(level);
    } else if (i == config_.caches.size() - 1 && !private_level) {
      for (int p = 0; p < topology_.packages(); ++p) l3_.emplace_back(level);
    } else {
      throw std::invalid_argument(fmt::format(
          "machine {}: cache levels must be a private L1, an optional private L2 and an optional shared last level",
          config_.name));
    }
  }
  open_row_.assign(static_cast<std::size_t>(topology_.packages()) * config_.dram.banks, ~std::uint64_t{0});
  carry_ns_.assign(static_cast<std::size_t>(topology_.cpus()), 0);
  source_counts_.assign(kSources, 0);
}

void MemorySystem::reset() {
  for (Cache& c : l1_) c.clear();
  for (Cache& c : l2_) c.clear();
  for (Cache& c : l3_) c.clear();
  lines_.clear();
  links_.reset();
  std::fill(open_row_.begin(), open_row_.end(), ~std::uint64_t{0});
  std::fill(carry_ns_.begin(), carry_ns_.end(), 0);
  std::fill(source_counts_.begin(), source_counts_.end(), 0);
}

std::uint64_t MemorySystem::access_ns(const Access& a) {
  if (a.cpu < 0 || a.cpu >= topology_.cpus())
    throw std::out_of_range(fmt::format("access from CPU {}, which machine {} does not have", a.cpu, config_.name));
  const std::uint64_t line_addr = a.addr / kLineBytes;
  if (line_addr > Cache::kMaxLine)
    throw std::out_of_range(fmt::format("access to {:#x}, beyond the simulated physical address space", a.addr));
  // The only insertion into the directory: everything below finds, which moves no entry.
  Line& line = lines_.find_or_insert(line_addr);
  links_.set_now(static_cast<double>(a.start_ns));
  const double exact = latency(a, line, line_addr, static_cast<double>(a.start_ns));
  source_counts_[static_cast<std::size_t>(last_source_)]++;
  // Virtual time is whole nanoseconds; each CPU carries the fractions it has not yet paid,
  // so a 1.5 ns hit costs 1 and 2 in turn and sums stay exact.
  double& carry = carry_ns_[static_cast<std::size_t>(a.cpu)];
  const double total = exact + carry;
  const double whole = std::floor(total);
  carry = total - whole;
  return static_cast<std::uint64_t>(whole);
}

// The host lines an access from `cpu` to `addr` reads first: its directory entry and the
// core's L1 set (most accesses are L1 hits, which read nothing else). A timed thread stops
// at its next access and other threads run before it (31 of them in sim-speed), so these
// loads are usually done by then. A miss prefetches the rest itself (see miss()).
void MemorySystem::prefetch(CpuId cpu, std::uint64_t addr) {
  const std::uint64_t line_addr = addr / kLineBytes;
  if (cpu < 0 || cpu >= topology_.cpus() || line_addr > Cache::kMaxLine) return;  // access_ns reports these
  lines_.prefetch(line_addr);
  l1_[static_cast<std::size_t>(topology_.core_of(cpu))].prefetch(line_addr);
}

void MemorySystem::prefetch_core_sets(int core, std::uint64_t line_addr) const {
  const auto c = static_cast<std::size_t>(core);
  l1_[c].prefetch(line_addr);
  if (!l2_.empty()) l2_[c].prefetch(line_addr);
}

std::optional<AccessDetail> MemorySystem::last_detail() const {
  const bool transfer = last_source_ == Source::same_package_core || last_source_ == Source::remote_cache;
  return AccessDetail{name_of(last_source_), transfer ? topology_.first_cpu_of_core(last_peer_core_) : -1};
}

std::uint64_t MemorySystem::wake_ns(CpuId from, CpuId to) {
  const int a = topology_.package_of(from);
  const int b = topology_.package_of(to);
  return config_.os.wake_ns + static_cast<std::uint64_t>(a == b ? 0 : topology_.path_latency_ns(a, b));
}

double MemorySystem::latency(const Access& a, Line& line, std::uint64_t line_addr, double start) {
  const int core = topology_.core_of(a.cpu);
  const bool exclusive = a.kind == OpKind::store || a.kind == OpKind::rmw || a.kind == OpKind::plain_store;
  const bool has_copy = line.owner == core || holds(line.sharers, core);
  if (has_copy && (!exclusive || line.owner == core)) return private_hit(core, line_addr);
  if (!has_copy) return miss(a, line, line_addr, core, start);
  // Shared here, wanted exclusive: invalidate every other copy (an RFO upgrade).
  for (int sharer : line.sharers) prefetch_core_sets(sharer, line_addr);
  const double begin = std::max(start, line.busy_until_ns);
  const double done = begin + private_hit(core, line_addr) + invalidate_others(line, line_addr, core, begin);
  remember(line, core, true);
  line.busy_until_ns = done;
  last_source_ = Source::upgrade;
  return done - start;
}

double MemorySystem::private_hit(int core, std::uint64_t line_addr) {
  Cache& l1 = l1_[static_cast<std::size_t>(core)];
  if (l1.lookup(line_addr)) {
    last_source_ = Source::l1;
    return l1.hit_ns();
  }
  // In the private L2 (the directory says this core holds it): refill L1.
  last_source_ = Source::l2;
  fill(core, line_addr);
  return l2_.empty() ? l1.hit_ns() : l2_[static_cast<std::size_t>(core)].hit_ns();
}

double MemorySystem::miss(const Access& a, Line& line, std::uint64_t line_addr, int core, double start) {
  const int package = topology_.package_of_core(core);
  const bool exclusive = a.kind != OpKind::load && a.kind != OpKind::plain_load;
  // The sets written last (this core's, which the line fills, and the other holders', which
  // it leaves) load their host lines while the messages are costed.
  if (!l2_.empty()) l2_[static_cast<std::size_t>(core)].prefetch(line_addr);
  if (!l3_.empty()) l3_[static_cast<std::size_t>(package)].prefetch(line_addr);
  if (line.owner >= 0) prefetch_core_sets(line.owner, line_addr);
  if (exclusive)
    for (int sharer : line.sharers) prefetch_core_sets(sharer, line_addr);
  const double begin = std::max(start, line.busy_until_ns);  // one transaction per line at a time
  double done = begin;
  if (line.owner >= 0) {
    // Dirty in another core: a cache-to-cache transfer.
    last_peer_core_ = line.owner;
    const int owner_package = topology_.package_of_core(line.owner);
    if (owner_package == package) {
      done += config_.c2c_same_package_ns;
      last_source_ = Source::same_package_core;
    } else {
      const double at_owner = done + config_.uncore_ns +
                              message(package, owner_package, Message::request, done + config_.uncore_ns);
      const double ready = at_owner + config_.remote_cache_ns;
      done = ready + message(owner_package, package, Message::data, ready);
      last_source_ = Source::remote_cache;
    }
    if (exclusive) {
      drop_from_core(line.owner, line_addr);
    } else {
      line.sharers.push_back(line.owner);
      line.owner = -1;
    }
    if (exclusive) done = std::max(done, begin + invalidate_others(line, line_addr, core, begin));
  } else if (!l3_.empty() && l3_[static_cast<std::size_t>(package)].lookup(line_addr)) {
    done += l3_[static_cast<std::size_t>(package)].hit_ns();
    if (exclusive) done = std::max(done, begin + invalidate_others(line, line_addr, core, begin));
    last_source_ = Source::l3;
  } else {
    done = from_memory(a, line, package, begin);
    if (exclusive) {
      // Only sharers hold it (no owner, no copy in this package's last level): every copy
      // goes, and this core (a miss: it holds none) takes it exclusive below.
      for (int sharer : line.sharers) evict_from_caches(sharer, line_addr);
      line.sharers.clear();
    }
  }
  fill(core, line_addr);
  remember(line, core, exclusive);
  line.busy_until_ns = done;
  return done - start;
}

// A miss in every cache of the package: DRAM at the home node, raced against the coherence
// traffic that must confirm no other package holds a newer copy.
double MemorySystem::from_memory(const Access& a, Line& line, int package, double start) {
  const int home = a.home;
  const double t0 = start + config_.uncore_ns;
  const double at_home = t0 + message(package, home, Message::request, t0);
  const double from_dram = at_home + dram(home, a.addr, at_home);
  const double data_back = from_dram + message(home, package, Message::data, from_dram);
  double answers = at_home;
  if (config_.coherence == Coherence::broadcast) {
    for (int p : packages_to_probe(line, package)) {
      const double arrive = at_home + message(home, p, Message::request, at_home) + config_.probe_ns;
      answers = std::max(answers, arrive + message(p, package, Message::request, arrive));
    }
  } else {
    // Home snoop: the requester's snoops go out with its request, in parallel with DRAM.
    for (int p = 0; p < topology_.packages(); ++p) {
      if (p == package) continue;
      const double arrive = t0 + message(package, p, Message::request, t0) + config_.probe_ns;
      answers = std::max(answers, arrive + message(p, package, Message::request, arrive));
    }
  }
  last_source_ = home == package ? Source::dram_local : Source::dram_remote;

  return std::max(data_back, answers);
}

// Invalidates every copy but `core`'s; returns how long the slowest acknowledgement takes.
double MemorySystem::invalidate_others(Line& line, std::uint64_t line_addr, int core, double start) {
  const int package = topology_.package_of_core(core);
  double slowest = 0;
  // Sharers in the order they got the line, then the owner: the order the invalidations
  // book their links in.
  auto acknowledge = [&](int other) {
    const int p = topology_.package_of_core(other);
    double cost = 0;
    if (p == package) {
      cost = l3_.empty() ? config_.c2c_same_package_ns : l3_[static_cast<std::size_t>(package)].hit_ns();
    } else {
      const double arrive = start + config_.uncore_ns + message(package, p, Message::request, start) + config_.probe_ns;
      cost = arrive + message(p, package, Message::request, arrive) - start;
    }
    slowest = std::max(slowest, cost);
  };
  for (int other : line.sharers)
    if (other != core) acknowledge(other);
  if (line.owner >= 0 && line.owner != core) acknowledge(line.owner);
  for (int other : line.sharers)
    if (other != core) evict_from_caches(other, line_addr);
  std::erase_if(line.sharers, [core](int other) { return other != core; });
  if (line.owner >= 0 && line.owner != core) {
    evict_from_caches(line.owner, line_addr);
    line.owner = -1;
  }
  return slowest;
}

// DRAM at `node`: a hit in a bank's open row is faster; an access during a refresh waits.
double MemorySystem::dram(NodeId node, std::uint64_t addr, double start) {
  const Dram& d = config_.dram;
  const std::uint64_t row_index = addr / d.row_bytes;
  const std::size_t bank = static_cast<std::size_t>(node) * d.banks + static_cast<std::size_t>(row_index % d.banks);
  const std::uint64_t row = row_index / d.banks;
  double latency = d.latency_ns;
  if (open_row_[bank] == row) latency -= d.open_row_saving_ns;
  open_row_[bank] = row;
  // Nodes refresh out of phase with each other [guess]: node n's refresh starts n/nodes of an interval later.
  const double offset = d.refresh_interval_ns * node / topology_.packages();
  const double phase = std::fmod(start + d.refresh_interval_ns - offset, d.refresh_interval_ns);
  const double wait = phase < d.refresh_busy_ns ? d.refresh_busy_ns - phase : 0;
  return wait + latency;
}

void MemorySystem::fill(int core, std::uint64_t line_addr) {
  const auto c = static_cast<std::size_t>(core);
  const int package = topology_.package_of_core(core);
  if (!l3_.empty() && config_.inclusive_llc) {
    if (auto evicted = l3_[static_cast<std::size_t>(package)].insert(line_addr)) {
      // Inclusion: what leaves the last level leaves every core of the package.
      if (Line* victim = lines_.find(*evicted)) {
        auto in_package = [&](int other) { return topology_.package_of_core(other) == package; };
        for (int other : victim->sharers)
          if (in_package(other)) evict_from_caches(other, *evicted);
        std::erase_if(victim->sharers, in_package);
        if (victim->owner >= 0 && in_package(victim->owner)) drop_from_core(victim->owner, *evicted);
      }
    }
  }
  std::optional<std::uint64_t> evicted = l1_[c].insert(line_addr);
  if (!l2_.empty()) evicted = l2_[c].insert(line_addr);  // L1's victim stays in L2
  if (evicted && *evicted != line_addr) {
    drop_from_core(core, *evicted);
    // A victim last level (Barcelona's L3) is filled by what the private levels evict.
    if (!l3_.empty() && !config_.inclusive_llc) l3_[static_cast<std::size_t>(package)].insert(*evicted);
  }
}

// Takes the line out of the core's private caches; the caller updates the directory.
void MemorySystem::evict_from_caches(int core, std::uint64_t line_addr) {
  const auto c = static_cast<std::size_t>(core);
  l1_[c].invalidate(line_addr);
  if (!l2_.empty()) l2_[c].invalidate(line_addr);
}

void MemorySystem::drop_from_core(int core, std::uint64_t line_addr) {
  evict_from_caches(core, line_addr);
  Line* line = lines_.find(line_addr);
  if (line == nullptr) return;
  if (line->owner == core) line->owner = -1;
  std::erase(line->sharers, core);
}

void MemorySystem::remember(Line& line, int core, bool exclusive) {
  if (exclusive) {
    line.owner = core;
    line.sharers.clear();
    return;
  }
  if (line.owner == core) return;
  if (!holds(line.sharers, core)) line.sharers.push_back(core);
}

// The packages a broadcast miss from `package` probes, in package order: every other one,
// or with the probe filter only those that may hold the line.
const std::vector<int>& MemorySystem::packages_to_probe(const Line& line, int package) {
  probed_.clear();
  if (!config_.probe_filter) {
    for (int p = 0; p < topology_.packages(); ++p)
      if (p != package) probed_.push_back(p);
    return probed_;
  }
  auto add = [&](int core) {
    const int p = topology_.package_of_core(core);
    if (p != package && std::find(probed_.begin(), probed_.end(), p) == probed_.end()) probed_.push_back(p);
  };
  if (line.owner >= 0) add(line.owner);
  for (int s : line.sharers) add(s);
  std::sort(probed_.begin(), probed_.end());
  return probed_;
}

}  // namespace lockstep::sim::machine
