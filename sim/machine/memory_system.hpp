// The machine model's cost of every memory access: private and shared caches, coherence
// between cores and packages, the interconnect (with per-link occupancy) and DRAM (open
// rows, refresh). It replaces the flat model behind the CostModel interface.
//
// Timing model. Accesses arrive in nondecreasing start time (the timed engine always runs
// the earliest thread next; exploration has one global clock), so shared resources keep a
// "busy until" time: messages queue on each link direction, and a DRAM access waits out a
// refresh. Coherence happens in time (docs/machines.md, "Coherence in time"): a request
// for a line travels to the place that orders the line's requests (the package's last
// level or directory for a transfer within a package, the home or the owner's package
// across packages), waits there until the line's previous transaction is complete, then
// reaches the owner, which gives the line up only then: until that moment the owner keeps
// hitting its copy (`departures_`), so a transfer carries the burst of operations the
// owner made while the request travelled, and N contenders pay N handovers, each at its own
// distance. What a miss costs depends on the protocol:
//   home_snoop (Nehalem):  uncore + req(r->h) + max(dram(h), snoop of the other packages) + data(h->r)
//   home_agent (AMD Zen):  uncore + req(r->h) + dram(h) + data(h->r): the home's probe filter
//                          knows the line is in no cache; a transfer is req(r->h) + req(h->owner)
//                          + remote_cache + data(owner->r)
//   broadcast (Opteron):   uncore + req(r->h) + max(dram(h) + data(h->r),
//                                                    max over probed n: probe(h->n) + lookup + answer(n->r))
// where the probe filter limits the probed packages to those that may hold the line, and the
// probes travel as one broadcast over the tree of the home's routes (interconnect.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/exec/cost_model.hpp"
#include "sim/machine/cache.hpp"
#include "sim/machine/interconnect.hpp"
#include "sim/machine/line_directory.hpp"
#include "sim/machine/machine_config.hpp"
#include "sim/machine/topology.hpp"
#include "sim/rng.hpp"

namespace lockstep::sim::machine {

// Which level answered an access: for statistics and the latency probe's tests.
enum class Source : std::uint8_t { l1, l2, l3, same_package_core, remote_cache, dram_local, dram_remote, upgrade };
inline constexpr int kSources = 8;
const char* name_of(Source source);

class MemorySystem final : public CostModel {
 public:
  explicit MemorySystem(const MachineConfig& config);
  MemorySystem(const MemorySystem&) = delete;  // the caches point into cache_words_
  MemorySystem& operator=(const MemorySystem&) = delete;

  void reset() override;
  std::uint64_t access_ns(const Access& access) override;
  void prefetch(CpuId cpu, std::uint64_t addr) override;
  void expect_lines(std::uint64_t lines) override { lines_.reserve(lines); }
  std::uint64_t fence_ns(CpuId) override { return config_.os.fence_ns; }
  std::uint64_t locked_prelude_ns(CpuId cpu) override;
  std::uint64_t pause_ns(CpuId) override { return config_.os.pause_ns; }
  std::uint64_t wake_ns(CpuId from, CpuId to) override;
  std::uint64_t unpark_ns(CpuId) override { return config_.os.unpark_ns; }
  const IdleCosts& idle_costs() const override { return config_.os.idle; }
  std::uint64_t path_ns(CpuId from, CpuId to) override;
  double copy_lost_at(CpuId cpu, std::uint64_t addr) const override;
  std::uint64_t lookahead_ns() const override { return lookahead_ns_; }
  std::uint64_t quiet_hit_ns(CpuId cpu, std::uint64_t addr, OpKind kind, std::uint64_t start) override;
  std::uint64_t context_switch_ns() override { return config_.os.context_switch_ns; }
  std::uint64_t time_slice_ns() override { return config_.os.time_slice_ns; }
  std::uint64_t work_ns(Work kind, std::uint32_t units) override {
    return config_.os.work_ns[static_cast<std::size_t>(kind)] * units;
  }

  const Topology& topology() const { return topology_; }
  const MachineConfig& config() const { return config_; }
  // How many accesses each source answered since the last reset.
  const std::vector<std::uint64_t>& source_counts() const { return source_counts_; }
  Source last_source() const { return last_source_; }
  // Dirty lines written back to memory since the last reset: evicted from the last cache
  // that held them, or (MESI) read by a core of another package.
  std::uint64_t writebacks() const { return writebacks_; }
  // Accesses that hit a copy whose request was still on its way to the core (counted among
  // the l1 source's) since the last reset.
  std::uint64_t departure_hits() const { return departure_hits_; }
  // DRAM accesses per bank since the last reset, node by node (node * banks + bank).
  const std::vector<std::uint64_t>& bank_accesses() const { return bank_accesses_; }
  // The state `core`'s caches hold `addr`'s line in, as the directory has it: 'M', 'O',
  // 'E', 'S' or 'I' (for tests and traces).
  char state_of(int core, std::uint64_t addr) const;
  // Whether package `package`'s shared last level holds `addr`'s line.
  bool llc_holds(int package, std::uint64_t addr) const;
  // The last source, and for a cache-to-cache transfer the first CPU of the core it came from.
  std::optional<AccessDetail> last_detail() const override;

 private:
  using Line = DirectoryLine;

  // memory_system.cpp: what an access costs
  double latency(const Access& a, Line& line, std::uint64_t line_addr, double start);
  std::uint64_t whole_ns(CpuId cpu, double exact);  // charged in whole ns, the fraction carried
  double transfer_jitter();
  void check_line(const Line& line, const Access& a) const;
  double private_hit(int core, Line& line, std::uint64_t line_addr, double at);
  double miss(const Access& a, Line& line, std::uint64_t line_addr, int core, double start);
  bool read_from_own_llc(const Line& line, std::uint64_t line_addr, int package, bool exclusive) const;
  double from_memory(const Access& a, Line& line, int package, double start);
  double message(int from, int to, Message kind, double start) { return links_.message(from, to, kind, start); }
  double dram(NodeId node, std::uint64_t addr, double start);
  void prefetch_core_sets(int core, std::uint64_t line_addr) const;  // the core's L1 and L2 sets of the line
  std::uint32_t packages_to_probe(const Line& line, int package) const;

  // coherence.cpp: the line's MESI/MOESI state, where copies live, what leaves the caches
  static std::uint16_t package_bit(int package) { return package < 0 ? 0 : static_cast<std::uint16_t>(1u << package); }
  void set_owner(Line& line, int core, OwnerState state);
  void add_sharer(Line& line, int core);
  void grant_read(Line& line, int core);
  void share_owned_line(Line& line, int reader, double at);
  double invalidate_others(Line& line, std::uint64_t line_addr, int core, double start, std::uint32_t probed);
  void drop_other_llcs(Line& line, std::uint64_t line_addr, int package);
  void fill(int core, Line& line, std::uint64_t line_addr, double at);
  void leave_core(int core, std::uint64_t line_addr, double at);
  void leave_llc(int package, std::uint64_t line_addr, double at);
  void writeback(const Line& line, int package, double at);
  void drop_from_core(int core, std::uint64_t line_addr);
  void evict_from_caches(int core, std::uint64_t line_addr);
  static char state_letter(const Line& line, int core);
  std::uint64_t least_reach_ns() const;  // lookahead_ns's value, from the machine's latencies
  std::uint64_t answered(Line& line, CpuId cpu, double exact);

  // coherence.cpp: copies that are on their way out (coherence in time)
  void depart(int core, std::uint64_t line_addr, double at, char state);
  void depart_sharers(const Line& line, std::uint64_t line_addr, int except, double at);
  // The state of the copy `core` still holds until its request arrives ('M', 'O', 'E', 'S'
  // or 'F', after this access), or 0 if it holds none that serves the access.
  char still_holds(int core, std::uint64_t line_addr, bool write, double at);

  MachineConfig config_;
  Topology topology_;
  // Every cache's tags, in one block (huge pages where the host has them: cache.hpp).
  std::vector<std::uint64_t, PopulatedAllocator<std::uint64_t>> cache_words_;
  std::vector<Cache> l1_;  // per core
  std::vector<Cache> l2_;  // per core (empty when the machine has no private L2)
  std::vector<Cache> l3_;  // per package
  LineDirectory lines_;
  // Per link direction, the intervals it is already booked for, in time order. A message
  // takes the first gap that fits after it is ready: messages of one access are booked out
  // of time order (the data reply before the probes it races), so a single "busy until"
  // would make early messages queue behind later ones.
  Interconnect links_;
  std::vector<double> probe_arrival_;    // scratch for from_memory: per package, when its probe arrives
  std::vector<std::uint64_t> open_row_;  // per node and bank
  std::vector<double> carry_ns_;         // per CPU: the fraction of a nanosecond not yet charged
  Rng jitter_;                           // transfer_jitter_ns's draws, reseeded by reset()
  // Per core, the copies it has been asked for whose request has not reached it yet: it
  // keeps hitting each until `until_ns` (a read always; a write if it held the line E or M),
  // in the state it held it in.
  // The directory already names the new holder, which the line's next request is ordered
  // behind. Entries in the past are dropped as the core's list is touched, so a list holds
  // only the lines it lost within one transfer's time.
  struct Departure {
    std::uint64_t line = 0;
    double until_ns = 0;
    char state = 'S';
  };
  std::vector<std::vector<Departure>> departures_;
  // In one core's list, the departing copy of the line, if it is still held after `at`.
  template <class List>
  static auto* departing(List& list, std::uint64_t line_addr, double at) {
    for (auto& d : list)
      if (d.line == line_addr && d.until_ns > at) return &d;
    return static_cast<decltype(&list.front())>(nullptr);
  }
  std::uint64_t departure_hits_ = 0;
  // Running ahead: the least reach (least_reach_ns), and per core the latest start of a
  // quiet hit it was allowed; a copy of that core's leaving at or before it would mean the
  // lookahead promised too much (depart() checks, in every build).
  std::uint64_t lookahead_ns_ = 0;
  std::vector<double> quiet_until_ns_;
  std::vector<std::uint64_t> source_counts_;
  std::vector<std::uint64_t> bank_accesses_;
  std::uint64_t writebacks_ = 0;
  Source last_source_ = Source::l1;
  int last_peer_core_ = -1;        // the core whose cache supplied the last miss's line, if one did
  char last_departing_state_ = 0;  // the state of a copy on its way out that the last access hit, or 0
  // The last access's line and CPU, for last_detail's state (only traced runs ask, so the
  // CPU's core is looked up there); the line is valid until the next access.
  const Line* last_line_ = nullptr;
  CpuId last_cpu_ = 0;
};

}  // namespace lockstep::sim::machine
