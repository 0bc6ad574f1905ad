// A simulated machine, as numbers: its shape (boards, packages, cores, SMT threads), its
// interconnect, caches, coherence protocol, DRAM and the costs of the OS. Presets
// (presets.cpp) fill one from the facts of docs/sources.md section 4; scenarios override
// any field. Latencies are in nanoseconds (fractions allowed: an L1 hit is ~1.5 ns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/cost_model.hpp"

namespace lockstep::sim::machine {

enum class Replacement : std::uint8_t { lru, plru };
enum class CacheScope : std::uint8_t { core, package };  // private to a core, or shared by a package
enum class Coherence : std::uint8_t {
  broadcast,   // Opteron: the home node probes every package; the requester waits for all answers
  home_snoop,  // Nehalem: inclusive L3 tracks its cores; the home agent snoops the other packages
  // AMD Zen: every request that leaves its package goes to the line's home agent (on the
  // IO die, with its memory), whose probe filter forwards it to the package holding the
  // line or, where none does, answers from memory without a probe.
  home_agent,
};

// The states a line can be in. All have Modified, Exclusive (the only copy, clean, so a
// write needs no message), Shared and Invalid; they differ in who answers a read of a line
// other cores hold.
enum class LineStates : std::uint8_t {
  mesi,   // the textbook protocol: a modified copy is written back (to memory, or the
          // package's inclusive L3) and becomes Shared; reads of shared lines go to memory
  mesif,  // Intel: as MESI, and the newest reader's copy is Forward, the one Shared copy
          // that answers the next reader from its cache
  moesi,  // AMD: a modified copy read by another core becomes Owned, stays dirty and answers
          // later readers; memory is written only when the Owned copy is evicted
};

struct CacheLevel {
  std::string name;  // L1, L2, L3
  std::uint64_t size_bytes = 0;
  std::uint32_t ways = 8;
  double hit_ns = 1;
  CacheScope scope = CacheScope::core;
  Replacement replacement = Replacement::lru;
};

struct Link {
  int a = 0;                          // package
  int b = 0;                          // package
  double latency_ns = 15;             // one way, per message
  double bandwidth_bytes_per_ns = 4;  // each direction
};

struct Dram {
  double latency_ns = 60;          // row miss, from the memory controller's point of view
  double open_row_saving_ns = 15;  // a hit in the open row of its bank is this much faster
  std::uint64_t row_bytes = 8192;
  std::uint32_t banks = 16;
  double refresh_interval_ns = 7800;  // tREFI
  double refresh_busy_ns = 160;       // tRFC: a bank group is unavailable this long
};

struct MachineConfig {
  std::string name;
  int boards = 1;
  int packages = 1;
  int cores_per_package = 1;
  int threads_per_core = 1;
  std::vector<int> board_of_package;  // empty: every package on board 0
  // Links join packages, and hubs where the machine has them (vertex packages + n is node
  // n's hub).
  std::vector<Link> links;
  // A NUMA node spans this many consecutive packages (AMD Zen in NPS1: a socket's core
  // complexes, each modelled as a package with its own L3, share the socket's memory).
  int packages_per_node = 1;
  // Each node's memory controllers and home agent sit on a hub of their own, a vertex of
  // the interconnect without cores (AMD Zen's IO die); false: on the node's first package.
  bool node_hubs = false;
  std::vector<CacheLevel> caches;  // from L1 outwards; line size is kLineBytes
  Coherence coherence = Coherence::home_snoop;
  LineStates line_states = LineStates::mesi;
  bool probe_filter = false;  // broadcast only: probe just the packages that may hold the line
  bool inclusive_llc = true;  // the last level holds every line its cores hold
  // home_snoop with a directory in memory (Intel Skylake-SP, Cascade Lake): a line another
  // package holds dirty is found through its home's DRAM unless that package is the home,
  // so a remote transfer costs a DRAM read more when the reader's package is home.
  bool memory_directory = false;
  double uncore_ns = 10;            // a miss's trip through the package's uncore to the memory controller
  double c2c_same_package_ns = 30;  // a dirty line from another core of the same package (HITM)
  // A clean (E or F) line from another core of the package where no inclusive last level
  // answers it (a snoop filter forwards the request to the core); 0: as a dirty one.
  double c2c_clean_same_package_ns = 0;
  // How a transfer within a package splits into its three legs: the request to where the
  // line's requests are ordered, the forward from there to the owner, the data back (what
  // is left). Unset: a third each [guess], computed as c / 3 so that presets' timed traces
  // stay as they were. A contended line shows the split: the owner keeps hitting its copy
  // for the forward leg after the line arrives, and a ping-pong's waiting side saves the
  // request leg. `lockstep calibrate` fits both to this host (docs/machines.md).
  struct C2cLegs {
    double request = 0;
    double forward = 0;
  };
  std::optional<C2cLegs> c2c_legs;
  // A read of a line another core of the package holds Modified takes the line whole: the
  // old owner's copy is invalidated and the reader holds it Modified, so a read followed by
  // a write (a counter's increment) moves the line once. Measured by `lockstep calibrate`
  // (the writer re-reads its line after another core loaded it: a transfer here, a hit
  // where the line is shared); false on the presets, which have no such measurement.
  bool migratory_reads = false;
  double remote_cache_ns = 20;  // a package answering a probe with its dirty line
  double probe_ns = 5;          // a package looking up a probe
  // A locked read-modify-write's own cost, on top of reaching its line: the line held across
  // the read and the write, the store buffer drained. 0: none (presets calibrated before the
  // field, whose c2c figures fold it into the transfer).
  double locked_ns = 0;
  // The share of locked_ns spent before the instruction reaches its line: x86 executes a
  // locked instruction's read only once its store buffer has drained and the instructions
  // before it are done (it is a full fence), so a request another core makes meanwhile
  // reaches the line first; the rest is the line held between the read and the write.
  // 0: all of it held (the presets, whose CAS figures were fitted that way); `lockstep
  // calibrate` derives it from the host's fence (docs/machines.md, "Locked instructions").
  double locked_before_line = 0;
  // Each cache-to-cache transfer reaches its owner up to this much later than the legs say,
  // uniformly at random from a fixed seed (the same for every execution): hardware's
  // arbitration and clock domains vary a transfer by some nanoseconds, and without that
  // two cores racing for a line meet at the same phase every time. 0: none (the presets);
  // `lockstep calibrate` measures it from a ping-pong's spread.
  double transfer_jitter_ns = 0;
  std::uint32_t request_bytes = 16;  // a request or probe message
  std::uint32_t data_bytes = 80;     // a cache line with its header
  Dram dram;
  std::uint32_t store_buffer_entries = 32;
  // How much longer a thread's CPU work (P::charge) takes while its core's other hardware
  // thread is busy too; 1 without SMT.
  double smt_work_factor = 1.0;
  FlatCosts os;  // pause, fence, wake, context switch, time slice, work costs

  int cpus() const { return packages * cores_per_package * threads_per_core; }
  int nodes() const { return packages / packages_per_node; }
  int hubs() const { return node_hubs ? nodes() : 0; }
  int cores() const { return packages * cores_per_package; }
};

inline constexpr std::uint32_t kLineBytes = 64;

}  // namespace lockstep::sim::machine
