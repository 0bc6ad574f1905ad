// The SOSP'13 machines. Every number names its source: "MCTOP" is mctop's description of
// the machine (github.com/LPD-EPFL/mctop at a8f88ca, desc/lpd48core.mct and
// desc/diassrv8.mct: CAS latency between every pair of hardware threads, memory latency from
// core 0 to every node; docs/machines.md copies the figures), "SOSP13" is the study (T. David,
// R. Guerraoui, V. Trigonakis, "Everything you always wanted to know about synchronization
// but were afraid to ask", SOSP 2013, section 3), the vendors' data sheets as named,
// [derived] is arithmetic on those (shown), [guess] a judgement with its reason.
//
// How the model composes a latency (memory_system.hpp): a cache-to-cache transfer within a
// package costs c2c_same_package_ns; across packages, uncore_ns + the request's route +
// remote_cache_ns + the data's route; a miss to DRAM costs uncore_ns + request + DRAM + data
// (with the probes or snoops in parallel). A route costs the sum of its hops' latencies
// plus its slowest hop's serialisation (bytes / bandwidth, cut through). A locked
// instruction adds locked_ns. The fits below solve those sums for the published figures.
#include "sim/machine/presets_sosp13.hpp"
#include "sim/machine/scaled_os_costs.hpp"

#include <cstdint>

namespace lockstep::sim::machine {

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

}  // namespace

// --- 4 x Opteron 6172 (Magny-Cours, 2.1 GHz): MCTOP lpd48core, SOSP13's "Opteron"
//
// Each package holds two six-core dies, each die its own memory controller, L3 and NUMA
// node (AMD, Magny-Cours): the model's package is a die, 8 of them.
// Targets (MCTOP, CAS on a line the other core wrote, 2.1 GHz): same die 117 cycles (55.7 ns),
// other die of the package 197 (93.8), one HT hop 217 (103.3), two hops 300 (142.9);
// memory from core 0: local 140-144 cycles (68 ns), one hop 246-267 (117-127 ns), two hops
// 336-349 (160-166 ns).
MachineConfig opteron_6172_4s() {
  MachineConfig c;
  c.name = "opteron-6172-4s";
  c.boards = 1;
  c.packages = 8;           // MCTOP: 8 NUMA nodes, two dies in each of 4 packages
  c.cores_per_package = 6;  // MCTOP: 48 cores, 6 per node; no SMT
  c.threads_per_core = 1;
  c.caches = {
      // 64 KiB 2-way, 3 cycles (AMD family 10h, as barcelona-4s): 3 / 2.1 GHz = 1.43 ns.
      CacheLevel{"L1", 64 * kKiB, 2, 1.43, CacheScope::core, Replacement::lru},
      // 512 KiB 16-way (AMD); [derived] barcelona-4s's ~16 cycles at 2.1 GHz = 7.6 ns.
      CacheLevel{"L2", 512 * kKiB, 16, 7.6, CacheScope::core, Replacement::lru},
      // 6 MiB per die, of which HT Assist's probe filter takes 1 MiB (AMD); [guess] 48-way,
      // so the filter's 1 MiB is 8 ways and 40 ways of 2,048 sets remain: 5 MiB. Hit
      // [derived]: barcelona-4s's 21.5 ns (the same L3 design).
      CacheLevel{"L3", 5 * kMiB, 40, 21.5, CacheScope::package, Replacement::lru},
  };
  c.coherence = Coherence::broadcast;  // AMD: broadcast probes, filtered by HT Assist
  c.line_states = LineStates::moesi;   // AMD64 Architecture Programmer's Manual, vol. 2: MOESI
  c.probe_filter = true;               // MCTOP/SOSP13: "MOESI with probe filter (HT Assist)"
  c.inclusive_llc = false;             // AMD: the L3 is a victim cache of the L2s
  // Links [derived from MCTOP's distances]: die d = 2p + k (package p, k = 0 or 1); the two
  // dies of a package are linked, and die k of each package to die k of every other, so each
  // die has its sibling, three dies one hop away and three two hops away: MCTOP's 5, 6, 18
  // and 18 peers per core, and its matrix (even dies one hop from each other, odd dies too).
  // Bandwidth (AMD): HT3 at 6.4 GT/s, x8 between packages (6.4 bytes/ns per direction), x16
  // plus x8 between the dies of a package (19.2). Latency [derived]: MCTOP's two-hop CAS less
  // its one-hop one is two more one-way hops: 142.9 - 103.3 = 39.6 ns, so 19.8 ns a hop.
  for (int p = 0; p < 4; ++p) c.links.push_back(Link{2 * p, 2 * p + 1, 19.8, 19.2});
  for (int k = 0; k < 2; ++k)
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) c.links.push_back(Link{2 * p + k, 2 * q + k, 19.8, 6.4});
  // [derived] one hop's CAS: uncore + remote_cache + 2 * 19.8 + 96 / 6.4 = 103.3, so
  // uncore + remote_cache = 48.7; uncore ~22 ns [guess]: finding the L3 miss (21.5) and the
  // crossbar; remote_cache_ns 26.7.
  c.uncore_ns = 22;
  c.remote_cache_ns = 26.7;
  c.c2c_same_package_ns = 55.7;  // MCTOP: same die 117 cycles (the CAS's own cost folded in)
  c.locked_ns = 0;               // folded into the figures above (MCTOP measures CASes)
  c.probe_ns = 10;               // [guess] as barcelona-4s: no inclusive cache to ask
  c.request_bytes = 16;          // [guess] an HT command packet with CRC and framing
  c.data_bytes = 80;             // [derived] 64 bytes of data and its command and framing
  // [derived] MCTOP local memory 68 ns = uncore 22 + this; then one hop = 68 + 39.6 + 15 =
  // 122.6 (MCTOP 117-127), two hops 68 + 79.2 + 15 = 162.2 (160-166), the sibling die 112.6.
  c.dram.latency_ns = 46;
  c.dram.open_row_saving_ns = 13.5;   // [derived] DDR3-1333 CL9: tRCD = 9 / 667 MHz
  c.dram.row_bytes = 8192;            // [derived] DDR3 x8 devices: 1 KiB page * 8 devices
  c.dram.banks = 16;                  // [derived] 2 DDR3 channels per die * 8 banks
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR3 tREFI
  c.dram.refresh_busy_ns = 110;       // JEDEC DDR3 tRFC for 1 Gb devices [guess at the density]
  c.store_buffer_entries = 32;        // [guess] as barcelona-4s
  c.os = scaled_os_costs(2.1);
  return c;
}

// --- 8 x Xeon E7-8867L (Westmere-EX, 2.13 GHz): MCTOP diassrv8, SOSP13's "Xeon"
//
// Targets (MCTOP, CAS, 2.13 GHz): SMT sibling 28 cycles (13.1 ns), same socket 116 (54.5),
// one QPI hop 341 (160.1), two hops 458 (215.0); memory from core 0: local 366-369 cycles
// (173 ns), one hop 487-505 (229-237 ns), two hops 594-615 (279-289 ns).
MachineConfig xeon_e7_8867l_8s() {
  MachineConfig c;
  c.name = "xeon-e7-8867l-8s";
  c.boards = 1;
  c.packages = 8;            // MCTOP: 8 sockets, 8 NUMA nodes
  c.cores_per_package = 10;  // MCTOP: 80 cores, 160 hardware threads
  c.threads_per_core = 2;
  c.smt_work_factor = 1.6;  // [guess] as nehalem-2s (Hyper-Threading, same core family)
  c.caches = {
      // 32 KiB 8-way, 4 cycles (Intel, Westmere): 4 / 2.13 GHz = 1.88 ns.
      CacheLevel{"L1", 32 * kKiB, 8, 1.88, CacheScope::core, Replacement::lru},
      // 256 KiB 8-way, 10 cycles (Intel): 4.7 ns.
      CacheLevel{"L2", 256 * kKiB, 8, 4.7, CacheScope::core, Replacement::lru},
      // Intel: 30 MiB, 24-way, shared, inclusive. [simplification] the model's sets are a
      // power of two: 24 ways of 16,384 sets, 24 MiB. Hit [guess] ~50 cycles: 23.5 ns.
      CacheLevel{"L3", 24 * kMiB, 24, 23.5, CacheScope::package, Replacement::lru},
  };
  c.coherence = Coherence::home_snoop;  // [guess] Intel's source snoop over QPI, as nehalem-2s
  c.line_states = LineStates::mesif;    // MCTOP/SOSP13: MESIF
  c.inclusive_llc = true;               // Intel: inclusive L3
  // Links [derived from MCTOP's distances]: each socket has 3 sockets one QPI hop away and 4
  // two hops away (MCTOP: 60 and 80 peers per thread): the Moebius ladder on 8 sockets,
  // i - i+1 and i - i+4, which has exactly that [guess at the wiring; the distances are
  // MCTOP's]. Bandwidth (Intel): QPI at 6.4 GT/s, 12.8 bytes/ns per direction. Latency
  // [derived]: two-hop CAS less one-hop = two more one-way hops: 215.0 - 160.1 = 54.9 ns, so
  // 27.45 ns a hop.
  for (int i = 0; i < 8; ++i) c.links.push_back(Link{i, (i + 1) % 8, 27.45, 12.8});
  for (int i = 0; i < 4; ++i) c.links.push_back(Link{i, i + 4, 27.45, 12.8});
  // [derived] MCTOP's SMT-sibling CAS, 28 cycles (13.1 ns), is an L1 hit (1.88) plus the
  // locked instruction's own cost: 11.2 ns.
  c.locked_ns = 11.2;
  // [derived] same socket CAS 54.5 ns = this + locked_ns.
  c.c2c_same_package_ns = 43.3;
  // [derived] one hop's CAS: uncore + remote_cache + 54.9 + 96 / 12.8 + 11.2 = 160.1, so
  // uncore + remote_cache = 86.5; uncore [guess] 25 (the L3 lookup that finds the miss and the
  // request's queue to QPI); remote_cache_ns 61.5.
  c.uncore_ns = 25;
  c.remote_cache_ns = 61.5;
  c.probe_ns = 5;        // [guess] an L3 tag lookup for a snoop, as nehalem-2s
  c.request_bytes = 16;  // [guess] a QPI request or snoop: header flits only
  c.data_bytes = 80;     // [derived] a 64-byte line and its header flits
  // [derived] MCTOP local 173 ns = uncore 25 + this (Westmere-EX's memory sits behind
  // scalable memory buffers); the snoops of the farthest sockets (2 * (54.9 + 1.25) + 5 =
  // 117 ns) return first. One hop 173 + 54.9 + 7.5 = 235.4 (MCTOP 229-237), two hops 290.3
  // (279-289).
  c.dram.latency_ns = 148;
  c.dram.open_row_saving_ns = 13.5;   // [derived] DDR3-1333 CL9: tRCD = 9 / 667 MHz
  c.dram.row_bytes = 8192;            // [derived] DDR3 x8 devices: 1 KiB page * 8 devices
  c.dram.banks = 32;                  // [derived] 4 DDR3 channels per socket (Intel) * 8 banks
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR3 tREFI
  c.dram.refresh_busy_ns = 160;       // JEDEC DDR3 tRFC for 2 Gb devices [guess at the density]
  c.store_buffer_entries = 32;        // Intel: Westmere has 32 store buffer entries (as Nehalem)
  c.os = scaled_os_costs(2.13);
  return c;
}

}  // namespace lockstep::sim::machine
