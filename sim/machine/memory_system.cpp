#include "sim/machine/memory_system.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

namespace {
// transfer_jitter_ns's draws start here in every execution (the first 64 bits of the
// fraction of sqrt(2): a number with nothing up its sleeve).
constexpr std::uint64_t kJitterSeed = 0x6a09e667f3bcc908ULL;
}  // namespace

const char* name_of(Source source) {
  switch (source) {
    case Source::l1:
      return "l1";
    case Source::l2:
      return "l2";
    case Source::l3:
      return "l3";
    case Source::same_package_core:
      return "same_package_core";
    case Source::remote_cache:
      return "remote_cache";
    case Source::dram_local:
      return "dram_local";
    case Source::dram_remote:
      return "dram_remote";
    case Source::upgrade:
      return "upgrade";
  }
  return "?";
}

MemorySystem::MemorySystem(const MachineConfig& config)
    : config_(config),
      topology_(config),
      links_(topology_, config_.request_bytes, config_.data_bytes),
      jitter_(kJitterSeed) {
  if (config_.caches.empty() || config_.caches.front().scope != CacheScope::core)
    throw std::invalid_argument(
        fmt::format("machine {}: the first cache level must be private to a core", config_.name));
  // Each level's caches (one per core or per package), carved out of one block of words.
  struct LevelCaches {
    std::vector<Cache>* caches;
    int count;
  };
  std::vector<LevelCaches> level_caches;
  std::size_t words = 0;
  for (std::size_t i = 0; i < config_.caches.size(); ++i) {
    const CacheLevel& level = config_.caches[i];
    const bool private_level = level.scope == CacheScope::core;
    const int count = private_level ? topology_.cores() : topology_.packages();
    if (i == 0) {
      level_caches.push_back({&l1_, count});
    } else if (i == 1 && private_level) {
      level_caches.push_back({&l2_, count});
    } else if (i == config_.caches.size() - 1 && !private_level) {
      level_caches.push_back({&l3_, count});
    } else {
      throw std::invalid_argument(fmt::format(
          "machine {}: cache levels must be a private L1, an optional private L2 and an optional shared last level",
          config_.name));
    }
    words += Cache::words_for(level) * static_cast<std::size_t>(count);
  }
  cache_words_.resize(words);
  std::uint64_t* next = cache_words_.data();
  for (std::size_t i = 0; i < config_.caches.size(); ++i) {
    for (int c = 0; c < level_caches[i].count; ++c) {
      level_caches[i].caches->emplace_back(config_.caches[i], next);
      next += Cache::words_for(config_.caches[i]);
    }
  }
  // The directory keeps a bit per package and a 16-bit core number per line; the engine
  // allows no more nodes (kMaxNodes) anyway.
  if (topology_.packages() > 16 || topology_.cores() > std::numeric_limits<std::int16_t>::max())
    throw std::invalid_argument(
        fmt::format("machine {}: the model handles at most 16 packages and 32767 cores", config_.name));
  open_row_.assign(static_cast<std::size_t>(topology_.nodes()) * config_.dram.banks, ~std::uint64_t{0});
  carry_ns_.assign(static_cast<std::size_t>(topology_.cpus()), 0);
  departures_.resize(static_cast<std::size_t>(topology_.cores()));
  quiet_until_ns_.assign(static_cast<std::size_t>(topology_.cores()), -1);
  lookahead_ns_ = least_reach_ns();
  source_counts_.assign(kSources, 0);
  bank_accesses_.assign(open_row_.size(), 0);
  probe_arrival_.assign(static_cast<std::size_t>(topology_.vertices()), 0);
}

void MemorySystem::reset() {
  jitter_.reseed(kJitterSeed);
  for (Cache& c : l1_) c.clear();
  for (Cache& c : l2_) c.clear();
  for (Cache& c : l3_) c.clear();
  lines_.clear();
  links_.reset();
  std::fill(open_row_.begin(), open_row_.end(), ~std::uint64_t{0});
  std::fill(carry_ns_.begin(), carry_ns_.end(), 0);
  for (auto& list : departures_) list.clear();
  std::fill(quiet_until_ns_.begin(), quiet_until_ns_.end(), -1);
  departure_hits_ = 0;
  std::fill(source_counts_.begin(), source_counts_.end(), 0);
  std::fill(bank_accesses_.begin(), bank_accesses_.end(), 0);
  writebacks_ = 0;
}

std::uint64_t MemorySystem::access_ns(const Access& a) {
  if (a.cpu < 0 || a.cpu >= topology_.cpus())
    throw std::out_of_range(fmt::format("access from CPU {}, which machine {} does not have", a.cpu, config_.name));
  const std::uint64_t line_addr = a.addr / kLineBytes;
  if (line_addr > Cache::kMaxLine)
    throw std::out_of_range(fmt::format("access to {:#x}, beyond the simulated physical address space", a.addr));
  // The only insertion into the directory: everything below finds, which moves no entry.
  if (a.home < 0 || a.home >= topology_.nodes())
    throw std::out_of_range(
        fmt::format("access homed on node {}, which machine {} does not have", a.home, config_.name));
  Line& line = lines_.find_or_insert(line_addr);
  line.home = static_cast<std::uint8_t>(a.home);
  links_.set_now(static_cast<double>(a.start_ns));
  last_in_flight_ = false;
  last_departing_state_ = 0;
  double exact = latency(a, line, line_addr, static_cast<double>(a.start_ns));
  if (a.kind == OpKind::rmw && config_.locked_ns > 0) {
    // A locked instruction keeps its line until its write is done: a request for the line
    // waits for that (miss: one transaction per line at a time). The share of its cost
    // spent before it reached the line was locked_prelude_ns.
    exact += (1 - config_.locked_before_line) * config_.locked_ns;
    line.busy_until_ns = std::max(line.busy_until_ns, static_cast<double>(a.start_ns) + exact);
    line.owner_busy = true;
  }
  return answered(line, a.cpu, exact);
}

// What every answered access records (access_ns's and a quiet hit's): its source's count,
// the line and CPU that last_detail() describes, and its cost in whole ns.
std::uint64_t MemorySystem::answered(Line& line, CpuId cpu, double exact) {
  source_counts_[static_cast<std::size_t>(last_source_)]++;
  last_line_ = &line;
  last_cpu_ = cpu;
  return whole_ns(cpu, exact);
}

// Uniform in [0, transfer_jitter_ns), in steps of 1/4096 of it: integer draws, so every host
// and compiler gets the same figures.
double MemorySystem::transfer_jitter() {
  constexpr std::uint64_t kSteps = 4096;
  return static_cast<double>(jitter_.below(kSteps)) * (config_.transfer_jitter_ns / kSteps);
}

std::uint64_t MemorySystem::locked_prelude_ns(CpuId cpu) {
  return config_.locked_before_line > 0 ? whole_ns(cpu, config_.locked_before_line * config_.locked_ns) : 0;
}

// The least time from any core's access to its first effect on another core's copy, each path
// of latency(), miss() and invalidate_others() bounded below by its fixed parts (queues,
// jitter and busy lines only add): a transfer within a package reaches the owner after its
// request and forward legs; an invalidation there after half the local round trip; across
// packages after the uncore and the shortest link; a line from memory takes the sharers'
// copies halfway through its miss. 0 where some effect is immediate in the model: SMT
// siblings share an L1, and an inclusive last level that evicts a line takes it from its
// package's cores at once.
std::uint64_t MemorySystem::least_reach_ns() const {
  if (config_.threads_per_core > 1 || (config_.inclusive_llc && !l3_.empty())) return 0;
  double c = config_.c2c_same_package_ns;
  if (config_.c2c_clean_same_package_ns > 0) c = std::min(c, config_.c2c_clean_same_package_ns);
  const double legs = config_.c2c_legs ? config_.c2c_legs->request + config_.c2c_legs->forward : 2.0 / 3;
  double least = c * legs;
  least = std::min(least, (l3_.empty() ? config_.c2c_same_package_ns : l3_.front().hit_ns()) / 2);
  if (topology_.packages() > 1) {
    double shortest_link = std::numeric_limits<double>::infinity();
    for (const auto& channel : topology_.channels()) shortest_link = std::min(shortest_link, channel.latency_ns);
    least = std::min(least, config_.uncore_ns + shortest_link);
  }
  least = std::min(least, (config_.uncore_ns + config_.dram.latency_ns - config_.dram.open_row_saving_ns) / 2);
  return least >= 1 ? static_cast<std::uint64_t>(least) : 0;
}

// The hits latency() answers from the core's own L1 without changing the directory: a read
// of a line the core holds (E, M, O, F or S), the line not busy with a transaction of its
// own. Made as access_ns makes them: the L1's LRU, the source count, the CPU's carried
// fraction. A read's answer cannot depend on another core's access that starts earlier:
// whatever that does to the line reaches this core's copy a lookahead later at the
// soonest, and the copy answers reads until then. A write's can: several reads of a
// Modified line made before it leave the owner's departing copy Owned at once in the
// model, so the write would pay an upgrade that the same write made first does not (and a
// locked instruction's hold would delay an earlier request made after it). Writes queue.
std::uint64_t MemorySystem::quiet_hit_ns(CpuId cpu, std::uint64_t addr, OpKind kind, std::uint64_t start) {
  if (lookahead_ns_ == 0 || cpu < 0 || cpu >= topology_.cpus()) return kNotQuiet;
  if (kind != OpKind::load && kind != OpKind::plain_load) return kNotQuiet;
  const std::uint64_t line_addr = addr / kLineBytes;
  Line* line = lines_.find(line_addr);
  if (line == nullptr || line->busy_until_ns > static_cast<double>(start)) return kNotQuiet;
  const int core = topology_.core_of(cpu);
  const bool held = line->owner == core || line->shared_by(core);
  Cache& l1 = l1_[static_cast<std::size_t>(core)];
  if (!held || !l1.lookup(line_addr)) return kNotQuiet;  // a miss in L1 marks nothing
  double& until = quiet_until_ns_[static_cast<std::size_t>(core)];
  until = std::max(until, static_cast<double>(start));
  last_in_flight_ = false;
  last_departing_state_ = 0;
  last_source_ = Source::l1;
  return answered(*line, cpu, l1.hit_ns());
}

// Virtual time is whole nanoseconds; each CPU carries the fractions it has not yet paid, so
// a 1.5 ns hit costs 1 and 2 in turn and sums stay exact.
std::uint64_t MemorySystem::whole_ns(CpuId cpu, double exact) {
  double& carry = carry_ns_[static_cast<std::size_t>(cpu)];
  const double total = exact + carry;
  // total >= 0, so truncating is flooring (one conversion each way; std::floor without
  // SSE4.1 is a sequence of masks).
  const auto whole = static_cast<std::int64_t>(total);
  carry = total - static_cast<double>(whole);
  return static_cast<std::uint64_t>(whole);
}

// The directory's states after an access that changed them (a miss or an upgrade; a hit
// changes none but E to M), checked in every build: a wrong state would not crash anything,
// it would quietly move every figure after it. The accessing core holds the line (M after
// a write); an owner is not also a sharer; E and M are the only copy.
void MemorySystem::check_line(const Line& line, const Access& a) const {
  const int core = topology_.core_of(a.cpu);
  const bool write = a.kind == OpKind::store || a.kind == OpKind::rmw || a.kind == OpKind::plain_store;
  const char* wrong = nullptr;
  if (write && (line.owner != core || line.owner_state != OwnerState::modified)) {
    wrong = "the writer does not hold it Modified";
  } else if (line.owner != core && !line.shared_by(core)) {
    wrong = "the reader holds no copy";
  } else if (line.owner >= 0 && line.shared_by(line.owner)) {
    wrong = "its owner is also a sharer";
  } else if (line.owner >= 0 && line.sole_copy() && !line.sharers.empty()) {
    wrong = "it is Exclusive or Modified and shared";
  }
  if (wrong != nullptr) [[unlikely]]
    throw std::logic_error(fmt::format("coherence directory: after an access by CPU {} to {:#x}, {} (a simulator bug)",
                                       a.cpu, a.addr, wrong));
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
  return AccessDetail{name_of(last_source_), transfer ? topology_.first_cpu_of_core(last_peer_core_) : -1,
                      last_departing_state_ != 0 ? last_departing_state_
                      : last_line_ == nullptr    ? '\0'
                                                 : state_letter(*last_line_, topology_.core_of(last_cpu_))};
}

std::uint64_t MemorySystem::path_ns(CpuId from, CpuId to) {
  const int a = topology_.package_of(from);
  const int b = topology_.package_of(to);
  return static_cast<std::uint64_t>(a == b ? 0 : topology_.path_latency_ns(a, b));
}

std::uint64_t MemorySystem::wake_ns(CpuId from, CpuId to) { return config_.os.wake_ns + path_ns(from, to); }

double MemorySystem::latency(const Access& a, Line& line, std::uint64_t line_addr, double start) {
  const int core = topology_.core_of(a.cpu);
  const bool exclusive = a.kind == OpKind::store || a.kind == OpKind::rmw || a.kind == OpKind::plain_store;
  if (line.owner == core) {
    // This core's copy is still arriving, or its SMT sibling's locked instruction holds it:
    // the access waits for that, then hits (core-to-core-latency: a CAS ping-pong between
    // siblings costs a locked instruction one way, 7.4-9.8 ns, not less), and the engine
    // applies its value then. (The CPU's own time is `start` plus the fraction it has not
    // paid yet: its own previous transaction is over by then.)
    if (line.owner_busy && line.busy_until_ns > start + carry_ns_[static_cast<std::size_t>(a.cpu)]) [[unlikely]] {
      const double begin = line.busy_until_ns;
      const double hit = latency(a, line, line_addr, begin);
      last_in_flight_ = true;
      return begin - start + hit;
    }
    // E, M, O or F here. A read hits; so does a write to E (which becomes M without a
    // message) or M. A write to O or F must first invalidate the Shared copies elsewhere.
    if (!exclusive) return private_hit(core, line, line_addr, start);
    if (line.sole_copy()) {
      set_owner(line, core, OwnerState::modified);
      return private_hit(core, line, line_addr, start);
    }
  } else if (line.shared_by(core)) {
    if (!exclusive) return private_hit(core, line, line_addr, start);
  }
  if (const char held = still_holds(core, line_addr, exclusive, start); held != 0) {
    // The request that takes this core's copy has not reached it yet: a hit, which changes
    // no state (the directory already has the line's next holder).
    ++departure_hits_;
    last_departing_state_ = held;
    last_source_ = Source::l1;
    return l1_[static_cast<std::size_t>(core)].hit_ns();
  }
  // Another core's copy is involved, or the line's previous transaction is still in flight:
  // the engine applies this access's value when the line arrives (CostModel::last_in_flight).
  last_in_flight_ =
      line.busy_until_ns > start || (line.owner >= 0 && line.owner != core) ||
      (exclusive && std::any_of(line.sharers.begin(), line.sharers.end(), [core](int s) { return s != core; }));
  if (line.owner != core && !line.shared_by(core)) {
    const double t = miss(a, line, line_addr, core, start);
    check_line(line, a);
    return t;
  }
  // S, O or F here, wanted exclusive: invalidate every other copy (an RFO upgrade).
  for (int sharer : line.sharers) prefetch_core_sets(sharer, line_addr);
  const double begin = std::max(start, line.busy_until_ns);
  const double done =
      begin + private_hit(core, line, line_addr, begin) + invalidate_others(line, line_addr, core, begin, 0);
  set_owner(line, core, OwnerState::modified);
  line.busy_until_ns = done;
  line.owner_busy = true;
  last_source_ = Source::upgrade;
  check_line(line, a);
  return done - start;
}

double MemorySystem::private_hit(int core, Line& line, std::uint64_t line_addr, double at) {
  Cache& l1 = l1_[static_cast<std::size_t>(core)];
  if (l1.lookup(line_addr)) {
    last_source_ = Source::l1;
    return l1.hit_ns();
  }
  // In the private L2 (the directory says this core holds it): refill L1.
  last_source_ = Source::l2;
  fill(core, line, line_addr, at);
  return l2_.empty() ? l1.hit_ns() : l2_[static_cast<std::size_t>(core)].hit_ns();
}

// A read of a line another package's core holds E, F or O, where the reader's own package's
// last level has a copy: that copy is current (only a Modified line has no valid copy
// elsewhere) and answers, as an L3 hit does, without a message.
bool MemorySystem::read_from_own_llc(const Line& line, std::uint64_t line_addr, int package, bool exclusive) const {
  return !exclusive && line.owner_state != OwnerState::modified && !l3_.empty() &&
         topology_.package_of_core(line.owner) != package && l3_[static_cast<std::size_t>(package)].contains(line_addr);
}

double MemorySystem::miss(const Access& a, Line& line, std::uint64_t line_addr, int core, double start) {
  const int package = topology_.package_of_core(core);
  // A read of a line another core of the package holds Modified takes it whole where the
  // machine migrates such lines (migratory_reads): the owner's copy goes, as for a write.
  const bool migrates = config_.migratory_reads && line.owner >= 0 && line.owner != core &&
                        line.owner_state == OwnerState::modified && topology_.package_of_core(line.owner) == package;
  const bool exclusive = (a.kind != OpKind::load && a.kind != OpKind::plain_load) || migrates;
  // The sets written last (this core's, which the line fills, and the other holders', which
  // it leaves) load their host lines while the messages are costed.
  if (!l2_.empty()) l2_[static_cast<std::size_t>(core)].prefetch(line_addr);
  if (!l3_.empty()) l3_[static_cast<std::size_t>(package)].prefetch(line_addr);
  if (line.owner >= 0) prefetch_core_sets(line.owner, line_addr);
  if (exclusive)
    for (int sharer : line.sharers) prefetch_core_sets(sharer, line_addr);
  const double begin = std::max(start, line.busy_until_ns);  // one transaction per line at a time
  double done = begin;
  if (line.owner >= 0 && !read_from_own_llc(line, line_addr, package, exclusive)) {
    // E, M, O or F in another core: a cache-to-cache transfer (a clean line costs less only
    // where an inclusive L3 answers it, or the preset sets c2c_clean_same_package_ns). The
    // request waits where the line's requests are ordered until the line's previous
    // transaction is done, then reaches the owner, which gives the line up at `served`.
    const int owner = line.owner;
    last_peer_core_ = owner;
    const int owner_package = topology_.package_of_core(owner);
    const char owner_state = state_letter(line, owner);
    double served = 0;
    if (owner_package == package && !line.dirty() && config_.inclusive_llc && !l3_.empty()) {
      // Clean in another core of the package: the inclusive L3 answers once it has snooped
      // that core. [derived] Intel: ~65 cycles (Nehalem, 24 ns); here an L3 hit and a probe.
      const double at_llc = start + l3_[static_cast<std::size_t>(package)].hit_ns();
      served = std::max(at_llc, line.busy_until_ns) + config_.probe_ns;
      done = served;
      last_source_ = Source::l3;
    } else if (owner_package == package) {
      // Three legs: to the package's directory (the last level's tags or the snoop filter),
      // on to the owner, and the data back; a third each unless the machine says how they
      // split (c2c_legs). A clean line can cost less than a modified one (MLC on Ice Lake:
      // 60.1 against 64.2 ns).
      const bool clean = !line.dirty() && config_.c2c_clean_same_package_ns > 0;
      const double c = clean ? config_.c2c_clean_same_package_ns : config_.c2c_same_package_ns;
      if (config_.c2c_legs) {
        served = std::max(start + c * config_.c2c_legs->request, line.busy_until_ns) + c * config_.c2c_legs->forward;
        done = served + c * (1 - config_.c2c_legs->request - config_.c2c_legs->forward);
      } else {
        const double leg = c / 3;
        served = std::max(start + leg, line.busy_until_ns) + leg;
        done = served + leg;
      }
      last_source_ = Source::same_package_core;
    } else {
      const double t0 = start + config_.uncore_ns;
      const int home = topology_.home_vertex(line.home);
      if (config_.coherence == Coherence::home_agent) {
        // AMD Zen: the home agent orders the request and its probe filter forwards it to the
        // owner's package; the data goes straight back. A line homed on a third node costs
        // two crossings more (core-to-core-latency on EPYC 7R13: the core complexes of the
        // socket that is not the line's home are as far apart as the two sockets). The home
        // serves the line's next request only once the previous requester, the owner now,
        // has told it that its transaction is done (AMD's coherent HyperTransport: the
        // source-done message), so a request waiting there still pays that message
        // [simplification: sent when the transaction, a locked instruction's hold included,
        // is over; not booked on the links].
        const double released = line.busy_until_ns + topology_.path_latency_ns(owner_package, home);
        const double at_home = std::max(t0 + message(package, home, Message::request, t0), released);
        served = at_home + message(home, owner_package, Message::request, at_home);
      } else if (config_.memory_directory && home != owner_package) {
        // A directory in memory (Intel Skylake-SP, Cascade Lake): the home learns that
        // another package holds the line only from the directory bits it reads with the
        // line from DRAM, and snoops the owner after that. Where the owner's package is the
        // home, the request reaches the owner's caches directly.
        const double at_home = std::max(t0 + message(package, home, Message::request, t0), line.busy_until_ns);
        const double looked_up = at_home + dram(line.home, line_addr * kLineBytes, at_home);
        served = looked_up + message(home, owner_package, Message::request, looked_up);
      } else if (home == package) {
        // The requester's own package is home: the request is ordered there, then crosses.
        const double ordered = std::max(t0, line.busy_until_ns);
        served = ordered + message(package, owner_package, Message::request, ordered);
      } else {
        // Ordered at the owner's package (its home agent, or the owner itself where the home
        // is a third package [simplification]: the request goes straight to the owner).
        served = std::max(t0 + message(package, owner_package, Message::request, t0), line.busy_until_ns);
      }
      const double ready = served + config_.remote_cache_ns;
      done = ready + message(owner_package, package, Message::data, ready);
      last_source_ = Source::remote_cache;
    }
    if (config_.transfer_jitter_ns > 0) {
      const double late = transfer_jitter();
      served += late;
      done += late;
    }
    depart(owner, line_addr, served, owner_state);
    if (exclusive) {
      // The request reached the owner's package: its last level's copy goes without a
      // message of its own.
      drop_from_core(owner, line_addr);
      done = std::max(done, begin + invalidate_others(line, line_addr, core, begin, package_bit(owner_package)));
    } else {
      share_owned_line(line, core, done);
    }
  } else if (!l3_.empty() && l3_[static_cast<std::size_t>(package)].lookup(line_addr)) {
    done += l3_[static_cast<std::size_t>(package)].hit_ns();
    if (exclusive) {
      done = std::max(done, begin + invalidate_others(line, line_addr, core, begin, 0));
    } else {
      grant_read(line, core);
    }
    last_source_ = Source::l3;
  } else {
    done = from_memory(a, line, package, begin);
    if (exclusive) {
      // Only sharers and other packages' last levels hold it, and the probes or snoops that
      // went to every package that may hold it invalidate them all, halfway through the
      // miss [guess].
      depart_sharers(line, line_addr, core, (begin + done) / 2);
      for (int sharer : line.sharers) evict_from_caches(sharer, line_addr);
      line.sharers.clear();
      drop_other_llcs(line, line_addr, package);
    } else if (line.dirty_llc >= 0 && config_.line_states != LineStates::moesi) {
      // The probe found the only dirty copy in another package's last level; MESI(F) shares
      // no dirty line, so that copy goes to memory as it answers (at the DRAM read's cost
      // [simplification]: the requester waits for every answer either way).
      writeback(line, line.dirty_llc, done);
      line.dirty_llc = -1;
    }
    if (!exclusive) grant_read(line, core);
  }
  if (exclusive) set_owner(line, core, OwnerState::modified);
  fill(core, line, line_addr, done);
  line.busy_until_ns = done;
  line.owner_busy = exclusive;
  return done - start;
}

// A miss in every cache of the package: DRAM at the home node, raced against the coherence
// traffic that must confirm no other package holds a newer copy.
double MemorySystem::from_memory(const Access& a, Line& line, int package, double start) {
  const int home = topology_.home_vertex(a.home);
  const double t0 = start + config_.uncore_ns;
  const double at_home = t0 + message(package, home, Message::request, t0);
  const double from_dram = at_home + dram(a.home, a.addr, at_home);
  const double data_back = from_dram + message(home, package, Message::data, from_dram);
  double answers = at_home;
  if (config_.coherence == Coherence::broadcast) {
    const std::uint32_t targets = packages_to_probe(line, package);
    links_.broadcast(home, targets, Message::request, at_home, probe_arrival_.data());
    for (std::uint32_t rest = targets; rest != 0; rest &= rest - 1) {  // answers in package order
      const int p = std::countr_zero(rest);
      const double arrive = probe_arrival_[static_cast<std::size_t>(p)] + config_.probe_ns;
      answers = std::max(answers, arrive + message(p, package, Message::request, arrive));
    }
  } else if (config_.coherence == Coherence::home_snoop) {
    // Home snoop: the requester's snoops go out with its request, in parallel with DRAM.
    for (int p = 0; p < topology_.packages(); ++p) {
      if (p == package) continue;
      const double arrive = t0 + message(package, p, Message::request, t0) + config_.probe_ns;
      answers = std::max(answers, arrive + message(p, package, Message::request, arrive));
    }
  }
  // (home_agent: the home's probe filter knows that no package holds the line; no probe.)
  last_source_ = a.home == topology_.node_of_package(package) ? Source::dram_local : Source::dram_remote;

  return std::max(data_back, answers);
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
  ++bank_accesses_[bank];
  // Nodes refresh out of phase with each other [guess]: node n's refresh starts n/nodes of an interval later.
  const double offset = d.refresh_interval_ns * node / topology_.nodes();
  const double phase = std::fmod(start + d.refresh_interval_ns - offset, d.refresh_interval_ns);
  const double wait = phase < d.refresh_busy_ns ? d.refresh_busy_ns - phase : 0;
  return wait + latency;
}

// The packages a broadcast miss from `package` probes, as a bit per package: every other
// one, or with the probe filter only those that may hold the line: a core's copy, or one
// in the package's last level (AMD's HT Assist covers every cache of the package).
std::uint32_t MemorySystem::packages_to_probe(const Line& line, int package) const {
  std::uint32_t holders = (std::uint32_t{1} << topology_.packages()) - 1;
  if (config_.probe_filter) {
    holders = line.llc_packages;
    if (line.owner >= 0) holders |= package_bit(topology_.package_of_core(line.owner));
    for (int s : line.sharers) holders |= package_bit(topology_.package_of_core(s));
  }
  return holders & ~package_bit(package);
}

}  // namespace lockstep::sim::machine
