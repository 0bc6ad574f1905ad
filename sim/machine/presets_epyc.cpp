// Two AMD EPYC 7R13 (Milan, Zen 3). "C2C" is core-to-core-latency's CAS ping-pong between
// every pair of hardware threads (github.com/nviennot/core-to-core-latency at 96a943a,
// results/AMD EPYC 7R13 48-Core Processor.csv: half a round trip, medians per distance
// computed from the matrix); AMD's facts are from its Zen 3 and EPYC 7003 documents
// (Software Optimization Guide for family 19h, the EPYC 7003 product pages). [derived] and
// [guess] as in presets.cpp.
//
// The shape. Each socket is eight-core complexes (CCX: one per chiplet, each with its own
// 32 MiB L3) around an IO die that holds the memory controllers and the home agents; a
// socket is one NUMA node (NPS1). The model's package is a CCX (its L3 is the package's
// last level), six to a node, and each node's IO die is a hub: every CCX has a link to its
// IO die, and the IO dies have one link between them.
//
// The targets (C2C, one way, ns): SMT sibling 9.8; same CCX 22.8; another CCX of socket 0
// 107.6; of socket 1 200.4; the other socket 197.1. Socket 1's pairs cost a socket crossing
// because the ping-pong's line is the main thread's, homed in socket 0's memory, and every
// request leaving a CCX goes to the line's home agent (Coherence::home_agent): the request
// crosses to socket 0's IO die and back.
//
// The fit is to the ping-pong itself (the c2c workload, as the tool runs it: both threads
// retry their CAS without a pause). There the next request already waits at the home when
// a CAS succeeds, so one way is: the locked instruction's hold + the source-done message to
// the home + the request forwarded to the owner + remote_cache + the data to the requester.
//   SMT sibling: L1 + locked_ns                         = 9.8   so locked_ns = 8.7
//   same CCX:   two legs of c2c_same_package_ns's three (the request waits at the CCX's
//               directory) + locked_ns                  = 22.8  so c2c = 21.15
//   socket 0:   8.7 + a + a + rc + 2a + 1.9             = 107.6 so 4a + rc = 97
//   crossing:   the above + 2b on average (b one way, 3b the other)
//                                                       = 197.1 so b = 44.4
// where a is a CCX-to-IO-die link, b the IO dies' link, and 1.9 the messages'
// serialisations. Socket 1's pairs (home on socket 0) come to the crossing's figure.
#include "sim/machine/presets_epyc.hpp"
#include "sim/machine/scaled_os_costs.hpp"

#include <cstdint>

namespace lockstep::sim::machine {

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

}  // namespace

// --- 2 x EPYC 7R13 (Milan, 48 cores, 3.6 GHz)
MachineConfig epyc_7r13_2s() {
  MachineConfig c;
  c.name = "epyc-7r13-2s";
  c.boards = 1;
  c.packages = 12;  // C2C: 96 cores; AMD: 8 cores per CCX, so 6 CCX a socket
  c.cores_per_package = 8;
  c.threads_per_core = 2;   // C2C: 192 hardware threads, CPU n + 96 the sibling of n
  c.packages_per_node = 6;  // [guess] NPS1, the default: one node per socket
  c.node_hubs = true;       // AMD: the IO die holds the memory controllers and the fabric
  c.smt_work_factor = 1.6;  // [guess] as nehalem-2s
  // [guess] the clock while measured: AWS quotes 3.6 GHz all-core turbo for the 7R13.
  constexpr double kGhz = 3.6;
  c.caches = {
      // AMD: 32 KiB 8-way, 4 cycles; 512 KiB 8-way, 12 cycles; 32 MiB 16-way per CCX, 46 cycles.
      CacheLevel{"L1", 32 * kKiB, 8, 4 / kGhz, CacheScope::core, Replacement::lru},
      CacheLevel{"L2", 512 * kKiB, 8, 12 / kGhz, CacheScope::core, Replacement::lru},
      CacheLevel{"L3", 32 * kMiB, 16, 46 / kGhz, CacheScope::package, Replacement::lru},
  };
  c.coherence = Coherence::home_agent;  // AMD: the home agent's probe filter (the IO die's directory)
  c.line_states = LineStates::moesi;    // AMD64 Architecture Programmer's Manual, vol. 2: MOESI
  c.inclusive_llc = false;              // AMD: the L3 is a victim cache of its CCX's L2s
  c.locked_ns = 8.7;                    // [derived] C2C's SMT sibling 9.8 less an L1 hit (1.1)
  c.c2c_same_package_ns = 21.15;        // [derived] C2C's same CCX 22.8 less locked_ns, 2/3 of this
  // uncore is the L3 lookup that finds the miss (46 cycles) [derived]; remote_cache [guess]
  // the owner CCX's shadow tags and its core's L2.
  c.uncore_ns = 46 / kGhz;
  c.remote_cache_ns = 12;
  c.probe_ns = 5;        // [guess] as the Xeons
  c.request_bytes = 16;  // [guess] a fabric request: header only
  c.data_bytes = 80;     // [derived] a 64-byte line and its header
  // Links [derived]: 4a + remote_cache = 97, so a = 21.25 ns; b = 44.4 ns.
  // Bandwidth: a CCD's link reads 32 bytes a fabric clock (AMD), 1.6 GHz with DDR4-3200 at
  // 1:1, 51.2 bytes/ns; one xGMI-2 link, x16 at 18 GT/s, 36 bytes/ns per direction
  // [simplification: one link stands for the three or four a two-socket board has].
  constexpr double kCcxLinkNs = 21.25;
  constexpr double kXgmiNs = 44.36;
  for (int p = 0; p < c.packages; ++p)
    c.links.push_back(Link{p, c.packages + p / c.packages_per_node, kCcxLinkNs, 51.2});
  c.links.push_back(Link{c.packages, c.packages + 1, kXgmiNs, 36});
  // [guess] local memory ~105 ns (no published figure for this machine): uncore 12.8 + two
  // link hops 42.5 + their serialisation 1.9 + this; remote adds the two crossings, ~195 ns.
  c.dram.latency_ns = 47.8;
  c.dram.open_row_saving_ns = 13.75;  // [derived] DDR4-3200 CL22: tRCD = 22 / 1600 MHz
  c.dram.row_bytes = 8192;            // [derived] x8 DDR4: 1 KiB page * 8 devices
  c.dram.banks = 128;                 // [derived] 8 channels (AMD) * 16 banks (DDR4); [guess] one rank each
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR4 tREFI
  c.dram.refresh_busy_ns = 350;       // JEDEC DDR4 tRFC1 for 8 Gb devices [guess at the density]
  c.store_buffer_entries = 64;        // AMD: Zen 3's store queue
  c.os = scaled_os_costs(kGhz);
  c.os.pause_ns = 18;  // [guess] Zen 2 and 3's pause, ~65 cycles
  return c;
}

}  // namespace lockstep::sim::machine
