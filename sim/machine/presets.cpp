// The preset machines. Every number names its source: "REF" is docs/sources.md section 4,
// "seed" is the DRAM-timing post (Jeff Roberson's blog, docs/sources.md section 4), [derived] is arithmetic on
// sourced facts (shown), [guess] is a judgement with its reasoning. The latency-related
// numbers (uncore_ns, dram.latency_ns, link latencies, c2c_same_package_ns,
// remote_cache_ns, probe_ns) are first values for calibration against the targets in
// docs/machines.md, which also shows the arithmetic that chose them.
//
// The first values follow MemorySystem's composition (memory_system.hpp): a hit costs its
// level's hit_ns (load-to-use, as the sources quote it); a miss in every cache costs
// uncore_ns (which therefore includes finding that the last level misses), the request to
// the home, then the DRAM and the data's way back or the coherence answers, whichever is
// later; a message costs latency_ns + bytes / bandwidth_bytes_per_ns per hop. Shorthand
// below: "req" and "data" are a request (16 bytes) and a data message (80 bytes) over a hop.
#include "sim/machine/presets.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/machine/host_topology.hpp"
#include "sim/machine/presets_epyc.hpp"
#include "sim/machine/presets_sosp13.hpp"
#include "sim/machine/presets_xeon_2s.hpp"

namespace lockstep::sim::machine {

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

// Packages 0..n-1 placed on boards of `per_board` packages each, in order.
std::vector<int> boards_in_order(int packages, int per_board) {
  std::vector<int> out(static_cast<std::size_t>(packages));
  for (int p = 0; p < packages; ++p) out[static_cast<std::size_t>(p)] = p / per_board;
  return out;
}

// --- Nehalem-EP, two sockets (Xeon 5500, e.g. X5550 at 2.66 GHz)

// The first presets' cost of a locked instruction of their own: [derived] from the preset's
// estimate of one (os.rmw_ns, which the flat machine charges) less an L1 hit. Their transfer
// terms are fitted with it to the published CAS ping-pong figures (each preset says how).
void locked_from_rmw_guess(MachineConfig& c) {
  c.locked_ns = static_cast<double>(c.os.rmw_ns) - c.caches.front().hit_ns;
}

MachineConfig nehalem_2s() {
  MachineConfig c;
  c.name = "nehalem-2s";
  c.boards = 1;             // one motherboard
  c.packages = 2;           // seed: "a simpler, two socket nehalem"; REF: Nehalem-EP 2-socket
  c.cores_per_package = 4;  // Xeon 5500: four cores per package
  c.threads_per_core = 2;   // Hyper-Threading: two threads per core
  // [guess] Hyper-Threading gives two threads of one core about 1.25x one thread's
  // throughput on kernel code, so each runs at ~0.62 of a lone thread's speed.
  c.smt_work_factor = 1.6;
  // Replacement is LRU everywhere [guess]: Intel documents no policy; its pseudo-LRU variants
  // behave like LRU for the access patterns of lock and hash-table workloads.
  c.caches = {
      // 32 KiB 8-way (Intel); REF 4 cycles: 4 / 2.66 GHz = 1.50 ns.
      CacheLevel{"L1", 32 * kKiB, 8, 1.5, CacheScope::core, Replacement::lru},
      // 256 KiB 8-way (Intel); REF 10 cycles: 10 / 2.66 GHz = 3.76 ns.
      CacheLevel{"L2", 256 * kKiB, 8, 3.8, CacheScope::core, Replacement::lru},
      // 8 MiB 16-way shared by the package (Intel); REF ~40 cycles: 40 / 2.66 GHz = 15.0 ns.
      CacheLevel{"L3", 8 * kMiB, 16, 15, CacheScope::package, Replacement::lru},
  };
  c.coherence = Coherence::home_snoop;  // REF: home snoop
  c.line_states = LineStates::mesif;    // Intel: MESIF (Nehalem introduced the Forward state)
  c.probe_filter = false;               // only meaningful for broadcast; Nehalem's L3 is the filter
  c.inclusive_llc = true;               // REF: inclusive L3
  // One QPI link between the two packages. REF: 6.4 GT/s, 12.8 GB/s per direction = 12.8 bytes/ns.
  // Latency [derived]: remote - local DRAM = 135 - 85 = 50 ns (seed) = a request and a data
  // message across the link = 2 * latency + 16/12.8 + 80/12.8 = 2 * latency + 7.5, so ~21 ns.
  c.links = {Link{0, 1, 21, 12.8}};
  // [derived] the L3 lookup that finds the miss (~15 ns, REF); [guess] the trip through the
  // global queue to the memory controller overlaps it. Any more and the cross-socket c2c
  // below (uncore + 49.5 + remote_cache_ns) overshoots REF's 72-76 ns.
  c.uncore_ns = 15;
  // REF: core to core one way ~37 ns in a socket, ~72-76 ns across, from a CAS ping-pong.
  // In the model the waiting side's request is already queued when the line arrives at its
  // partner (coherence in time, docs/machines.md), so a pass costs the transfer's last two
  // thirds and the CAS (locked_ns 6.5): [derived, fitted by simulation] 42.75 ns for the
  // whole transfer gives the model's ping-pong 37 ns. REF's "line modified in another core
  // ~75 cycles" (28 ns, a load with nobody waiting) is then not held: the model gives 42.75.
  c.c2c_same_package_ns = 42.75;
  // [derived, fitted by simulation] the owning package's share of a cross-socket handover:
  // uncore 15 + req 22.25 + this + data 27.25, with the ping-pong's queueing, gives 74 ns.
  c.remote_cache_ns = 28;
  c.probe_ns = 5;        // [guess] an L3 tag lookup for a snoop, a third of an L3 hit
  c.request_bytes = 16;  // [guess] a QPI request or snoop: header flits only (model default)
  c.data_bytes = 80;     // [derived] a 64-byte line and its header flits (model default)
  // [derived] local DRAM ~85 ns (seed) = uncore 15 + this, so a 70 ns row miss. The snoop of
  // the other package (22.25 + 5 + 22.25 = 49.5 ns) runs in parallel and is shorter. Remote:
  // 15 + req 22.25 + 70 + data 27.25 = 134.5 ns, the seed's ~135.
  c.dram.latency_ns = 70;
  c.dram.open_row_saving_ns = 13.5;   // [derived] DDR3-1333 CL9: tRCD = 9 / 667 MHz = 13.5 ns skipped on a row hit
  c.dram.row_bytes = 8192;            // [derived] DDR3 x8 devices: 1 KiB page * 8 devices per 64-bit rank
  c.dram.banks = 24;                  // [derived] 3 DDR3 channels * 8 banks; [guess] one single-rank DIMM each
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR3 tREFI (below 85 C); seed: the refresh peak
  c.dram.refresh_busy_ns = 110;       // JEDEC DDR3 tRFC for 1 Gb devices [guess at the density]
  c.store_buffer_entries = 32;        // Intel: Nehalem has 32 store buffer entries
  c.os = FlatCosts{
      .load_ns = 2,                // [derived] an L1 hit, 1.5 ns rounded up (the flat fallback only)
      .store_ns = 2,               // [derived] into the store buffer, as an L1 hit
      .rmw_ns = 8,                 // [guess] a locked instruction, ~20 cycles / 2.66 GHz
      .plain_ns = 2,               // [derived] as load_ns
      .fence_ns = 12,              // [guess] mfence, ~30 cycles / 2.66 GHz
      .pause_ns = 4,               // [guess] pause, ~10 cycles on Nehalem
      .wake_ns = 2000,             // [guess] IPI and wakeup of an idle CPU
      .unpark_ns = 300,            // [guess] try_to_wake_up's cost to the waker
      .context_switch_ns = 1500,   // [guess] a Linux context switch on a 2.66 GHz core
      .time_slice_ns = 3'000'000,  // [guess] CFS's slice with a few runnable tasks (OS, not hardware)
      .work_ns = {20, 50, 50, 1},  // [guess] hash (jhash2, ~50 cycles), syscall entry, exit, one instruction
  };
  // The idle loop (sim/exec/idle_model.hpp, used with `scheduler: {idle: ...}`).
  c.os.idle = IdleCosts{
      .ipi_send_ns = 600,        // [guess] the xAPIC ICR write (an uncached MMIO write) and the kernel's path to it
      .hlt_exit_ns = 4000,       // Linux intel_idle's Nehalem table: C1 (hlt) exit latency 3 us; [guess] 1 us
                                 // more for the interrupt's delivery and handler
      .mwait_exit_ns = 200,      // [guess] mwait with a C0 hint (the seed keeps the Xeons in C0): the
                                 // watched line's invalidation restarts the core
      .spin_detect_ns = 60,      // [guess] the spinning loop sees the line change: one transfer within the
                                 // package, of the order of the c2c figure above
      .spin_iterations = 10000,  // FreeBSD sched_ule.c: sched_idlespins
      .spin_switches = 4,        // FreeBSD sched_ule.c of 2008: sched_idlespinthresh = 4
      .mwait_switches = 1,       // the same: cpu_idle(switchcnt > 1)
      .tick_ns = 1'000'000,      // [guess] FreeBSD's default hz = 1000 (which clock rolls the count: not checked)
  };
  locked_from_rmw_guess(c);
  return c;
}

// --- Opteron Barcelona (8350-class, 2.0 GHz), four sockets on one board

// The shared Barcelona core: everything but the shape and the links.
MachineConfig barcelona_core() {
  MachineConfig c;
  c.cores_per_package = 4;  // REF/seed: quad-core Barcelona (seed: 32 cores in 8 sockets)
  c.threads_per_core = 1;   // Barcelona has no SMT
  // Replacement is LRU everywhere [guess]: AMD documents the L1 as LRU, the others not.
  c.caches = {
      // 64 KiB 2-way (AMD); REF 3 cycles: 3 / 2.0 GHz = 1.5 ns.
      CacheLevel{"L1", 64 * kKiB, 2, 1.5, CacheScope::core, Replacement::lru},
      // 512 KiB 16-way (AMD); REF ~16 cycles: 16 / 2.0 GHz = 8 ns.
      CacheLevel{"L2", 512 * kKiB, 16, 8, CacheScope::core, Replacement::lru},
      // 2 MiB 32-way shared by the package (AMD); REF ~20-23 ns: the middle, 21.5 ns.
      CacheLevel{"L3", 2 * kMiB, 32, 21.5, CacheScope::package, Replacement::lru},
  };
  c.coherence = Coherence::broadcast;  // REF: broadcast probes
  c.line_states = LineStates::moesi;   // AMD64 Architecture Programmer's Manual, vol. 2: MOESI
  c.probe_filter = false;              // REF: the probe filter (HT Assist) came with later parts
  c.inclusive_llc = false;             // AMD: the L3 is a victim cache of the L2s, not inclusive
  // [derived] finding that the L3 misses (REF ~21.5 ns) plus a few ns of system request
  // interface and crossbar [guess].
  c.uncore_ns = 25;
  // REF: same-die c2c one way ~76 ns, cross-socket ~100 ns (one hop), from a CAS ping-pong.
  // [derived, fitted by simulation] as nehalem-2s: with locked_ns 8.5, a 100 ns transfer
  // gives the model's ping-pong 76 ns in a die, and 46.5 ns for the owner's package to find
  // and hand over its line gives 100 ns one hop away (123 ns two hops).
  c.c2c_same_package_ns = 100;
  c.remote_cache_ns = 46.5;
  // [guess] none of Barcelona's caches is inclusive, so a probe looks up the L3 and every
  // core's L1 and L2 tags: twice Nehalem's 5 ns.
  c.probe_ns = 10;
  c.request_bytes = 16;  // [guess] an HT command packet (8 bytes) with CRC and framing, rounded up
  c.data_bytes = 80;     // [derived] 64 bytes of data and its command and framing
  // [derived] REF 2S local DRAM 85 ns, where the one-hop probe round trip (19 + 10 + 19 = 48 ns)
  // is shorter than the DRAM: 85 = uncore 25 + this, so 60 ns. On four sockets the two-hop
  // probe (38 + 10 + 38 = 86 ns) is longer: local = 25 + 86 = 111 ns, within REF's 100-130.
  c.dram.latency_ns = 60;
  c.dram.open_row_saving_ns = 15;     // [derived] DDR2-667 CL5: tRCD = 5 / 333 MHz = 15 ns skipped on a row hit
  c.dram.row_bytes = 8192;            // [derived] DDR2 x8 1 Gb devices: 1 KiB page * 8 devices (unganged channels)
  c.dram.banks = 16;                  // [derived] 2 DDR2 channels * 8 banks (1 Gb devices); [guess] one rank each
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR2 tREFI (below 85 C)
  c.dram.refresh_busy_ns = 127.5;     // JEDEC DDR2 tRFC for 1 Gb devices [guess at the density]
  c.store_buffer_entries = 32;        // [guess] K10's 32-entry second load/store queue (LS2)
  // The OS costs are Nehalem's guesses scaled by the clock, 2.66 / 2.0 = 1.33, where they are
  // CPU-bound work.
  c.os = FlatCosts{
      .load_ns = 2,                // [derived] an L1 hit, 1.5 ns rounded up (the flat fallback only)
      .store_ns = 2,               // [derived] into the store buffer, as an L1 hit
      .rmw_ns = 10,                // [guess] a locked instruction, ~20 cycles / 2.0 GHz
      .plain_ns = 2,               // [derived] as load_ns
      .fence_ns = 20,              // [guess] mfence, ~40 cycles / 2.0 GHz
      .pause_ns = 2,               // [guess] pause is a few cycles on K10
      .wake_ns = 2700,             // [derived] Nehalem's 2000 * 1.33 (the model adds the path between packages)
      .unpark_ns = 400,            // [derived] Nehalem's 300 * 1.33
      .context_switch_ns = 2000,   // [derived] Nehalem's 1500 * 1.33
      .time_slice_ns = 3'000'000,  // [guess] CFS's slice with a few runnable tasks (OS, not hardware)
      .work_ns = {27, 67, 67, 1},  // [derived] Nehalem's 20, 50, 50 * 1.33; one instruction ~1 ns
  };
  // The idle loop: Nehalem's guesses scaled by the clock where they are the core's work.
  c.os.idle = IdleCosts{
      .ipi_send_ns = 800,        // [derived] Nehalem's 600 * 1.33
      .hlt_exit_ns = 5300,       // [guess] Nehalem's 4000 * 1.33: family 10h's hlt may enter C1E, which the
                                 // seed's "mwait doesn't enter as deep of a sleep" suggests is deeper
      .mwait_exit_ns = 270,      // [derived] Nehalem's 200 * 1.33 (the seed keeps the Opterons in C0 too)
      .spin_detect_ns = 76,      // [derived] the same-die c2c one way above (REF: ~76 ns)
      .spin_iterations = 10000,  // FreeBSD sched_ule.c: sched_idlespins
      .spin_switches = 4,        // FreeBSD sched_ule.c of 2008: sched_idlespinthresh = 4
      .mwait_switches = 1,       // the same: cpu_idle(switchcnt > 1)
      .tick_ns = 1'000'000,      // [guess] FreeBSD's default hz = 1000 (which clock rolls the count: not checked)
  };
  locked_from_rmw_guess(c);
  return c;
}

// HT between packages. REF: a hop ~15 ns each way [derived]. Bandwidth [guess]: 16-bit HT1
// links at 1 GHz, double-pumped, carry 4 GB/s per direction, the speed Socket F boards ran.
constexpr double kHtHopNs = 15;
constexpr double kHtBytesPerNs = 4;

// The square of a four-socket Opteron board: packages 0-1, 1-3, 3-2, 2-0, so 0-3 and 1-2 are
// two hops apart (the seed: "not all processors in a 4 socket system are directly connected",
// hence its one-hop and two-hop peaks). `first` numbers the board's packages first..first+3.
void add_square(std::vector<Link>& links, int first) {
  constexpr std::array<std::pair<int, int>, 4> kSquare{{{0, 1}, {1, 3}, {3, 2}, {2, 0}}};
  for (const auto& [a, b] : kSquare) links.push_back(Link{first + a, first + b, kHtHopNs, kHtBytesPerNs});
}

MachineConfig barcelona_4s() {
  MachineConfig c = barcelona_core();
  c.name = "barcelona-4s";
  c.boards = 1;    // one board
  c.packages = 4;  // REF: 4-socket Barcelona (one of the seed's two boards)
  add_square(c.links, 0);
  return c;
}

// --- The seed's Tyan 8-socket Barcelona: two barcelona-4s boards joined by two slow HT links

MachineConfig barcelona_8s() {
  MachineConfig c = barcelona_core();
  c.name = "barcelona-8s";
  c.boards = 2;                                // seed: "basically two 4 socket boards"
  c.packages = 8;                              // seed: "a tyan 8 socket barcelona system", 32 cores
  c.board_of_package = boards_in_order(8, 4);  // packages 0-3 on board 0, 4-7 on board 1
  add_square(c.links, 0);
  add_square(c.links, 4);
  // seed: "two very slow HT links between them". [guess] at the wiring: 2-4 and 3-5, which
  // with the two squares makes the 2x4 ladder of eight-socket Opteron systems (0-1, 2-3, 4-5,
  // 6-7 are the rungs): packages 0 and 1 keep their third link for the I/O hubs, 2 and 3 use
  // theirs for the other board. The diameter is 4 hops (0-7, 1-6), every path between
  // the boards crosses exactly one board link.
  // Bandwidth [guess, calibrated]: a narrow, slow link, of the order of an 8-bit HT link at
  // 200-400 MHz (0.4-0.8 bytes/ns; 0.4 is HT's power-on width and speed, where links that do
  // not train higher over a board-to-board connector stay). 0.6 bytes/ns puts the model's
  // cross-board accesses at 395-455 ns from CPU 0, the seed's "regularly ... up to .5us";
  // an 80-byte data message pays 133 ns per crossing and a 16-byte probe 27 ns.
  // Latency [guess]: an on-board hop plus a third for the connector and the longer traces.
  constexpr double kBoardLinkNs = 20;
  constexpr double kBoardLinkBytesPerNs = 0.6;
  c.links.push_back(Link{2, 4, kBoardLinkNs, kBoardLinkBytesPerNs});
  c.links.push_back(Link{3, 5, kBoardLinkNs, kBoardLinkBytesPerNs});
  return c;
}

// --- A large machine: 16 Xeon E7 v3 sockets (Haswell-EX) glued by node controllers

MachineConfig xeon_e7_16s() {
  MachineConfig c;
  c.name = "xeon-e7-16s";
  // [guess] an SGI UV 300-like machine: four boards (chassis) of four E7-8867 v3 sockets,
  // fully connected by QPI within a board; node controllers join the boards all to all.
  c.boards = 4;
  c.packages = 16;
  c.board_of_package = boards_in_order(16, 4);
  c.cores_per_package = 16;  // Intel: E7-8867 v3 has 16 cores (2.5 GHz)
  c.threads_per_core = 2;    // Hyper-Threading: 16 * 16 * 2 = 512 CPUs
  c.smt_work_factor = 1.6;   // [guess] as nehalem-2s
  // Replacement is LRU everywhere [guess], as for Nehalem.
  c.caches = {
      // 32 KiB 8-way (Intel); Haswell 4 cycles: 4 / 2.5 GHz = 1.6 ns.
      CacheLevel{"L1", 32 * kKiB, 8, 1.6, CacheScope::core, Replacement::lru},
      // 256 KiB 8-way (Intel); Haswell 12 cycles: 12 / 2.5 GHz = 4.8 ns.
      CacheLevel{"L2", 256 * kKiB, 8, 4.8, CacheScope::core, Replacement::lru},
      // 45 MiB shared by the package (Intel: 45 MB in 20-way slices). [derived] 45 ways: the
      // model needs a power-of-two number of sets, and 16384 sets of 45 ways keep the capacity
      // (20 ways would give 36864 sets). Latency [guess] ~20 ns, Haswell-EP's measured L3
      // latency, on a bigger ring.
      CacheLevel{"L3", 45 * kMiB, 45, 20, CacheScope::package, Replacement::lru},
  };
  // Intel calls Haswell-EX's protocol home snoop with a directory: directory bits in memory
  // (and the node controllers' directories) let the home snoop only the packages that may
  // hold the line. In the model that is the home probing with a probe filter (broadcast
  // with probe_filter); its home_snoop snoops every other package on every miss, which on
  // sixteen packages would put a cross-board round trip (~270 ns) into each local miss.
  c.coherence = Coherence::broadcast;
  c.line_states = LineStates::mesif;  // Intel: MESIF, as nehalem-2s
  c.probe_filter = true;
  c.inclusive_llc = true;  // Intel: inclusive L3 up to Broadwell
  // Within a board: QPI 1.1 at 9.6 GT/s, 19.2 GB/s per direction (Intel) = 19.2 bytes/ns; each
  // E7 v3 has three QPI links, enough to connect four packages fully. Latency [guess]: as
  // Nehalem's derived 21 ns, a little less on a faster link.
  constexpr double kQpiNs = 20;
  constexpr double kQpiBytesPerNs = 19.2;
  for (int board = 0; board < 4; ++board) {
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) c.links.push_back(Link{4 * board + a, 4 * board + b, kQpiNs, kQpiBytesPerNs});
    }
  }
  // Between boards, through the node controllers. The model has no vertex for a node
  // controller, so package p of a board gets a link to package p of every other board; its
  // latency stands for QPI to the controller, the fabric and the far controller.
  // Latency [guess]: 130 ns one way, so another board's memory is ~400 ns, the order SGI
  // quotes for NUMAlink systems. Bandwidth [guess]: NUMAlink 7, ~15 GB/s both ways = 7.5 per direction.
  constexpr double kNodeControllerNs = 130;
  constexpr double kNumalinkBytesPerNs = 7.5;
  for (int p = 0; p < 4; ++p) {
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b)
        c.links.push_back(Link{4 * a + p, 4 * b + p, kNodeControllerNs, kNumalinkBytesPerNs});
    }
  }
  c.uncore_ns = 25;  // [derived] the ~20 ns L3 miss plus ~5 ns to the memory controller [guess]
  // [guess] a dirty line from another core across the larger ring: a ping-pong of ~35 ns one
  // way, which with locked_ns 6.4 is a 43 ns transfer (as fitted for nehalem-2s).
  c.c2c_same_package_ns = 43;
  c.remote_cache_ns = 28;  // [guess] as nehalem-2s
  c.probe_ns = 5;          // [guess] as Nehalem
  c.request_bytes = 16;    // [guess] as Nehalem's QPI
  c.data_bytes = 80;       // [derived] as Nehalem's QPI
  // [guess] local DRAM ~120 ns (the E7's DDR4 sits behind scalable memory buffers) = uncore 25
  // + this, so 95 ns.
  c.dram.latency_ns = 95;
  c.dram.open_row_saving_ns = 13.75;  // [derived] DDR4-1600 CL11: tRCD = 11 / 800 MHz = 13.75 ns
  c.dram.row_bytes = 8192;            // [derived] DDR4 x8 devices: 1 KiB page * 8 devices per rank
  c.dram.banks = 128;                 // [derived] 4 SMI2 links * 2 DDR4 channels * 16 banks; [guess] one rank each
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR4 tREFI (below 85 C)
  c.dram.refresh_busy_ns = 260;       // JEDEC DDR4 tRFC1 for 4 Gb devices [guess at the density]
  c.store_buffer_entries = 42;        // Intel: Haswell has 42 store buffer entries
  c.os = FlatCosts{
      .load_ns = 2,                // [derived] an L1 hit, 1.6 ns rounded up (the flat fallback only)
      .store_ns = 2,               // [derived] into the store buffer, as an L1 hit
      .rmw_ns = 8,                 // [guess] a locked instruction, ~20 cycles / 2.5 GHz
      .plain_ns = 2,               // [derived] as load_ns
      .fence_ns = 13,              // [guess] mfence, ~33 cycles / 2.5 GHz
      .pause_ns = 4,               // [guess] pause, ~10 cycles on Haswell
      .wake_ns = 2000,             // [guess] as Nehalem (the model adds the path between packages)
      .unpark_ns = 300,            // [guess] as Nehalem
      .context_switch_ns = 1500,   // [guess] as Nehalem
      .time_slice_ns = 3'000'000,  // [guess] CFS's slice with a few runnable tasks (OS, not hardware)
      .work_ns = {20, 50, 50, 1},  // [guess] as Nehalem
  };
  locked_from_rmw_guess(c);
  return c;
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"nehalem-2s",      "barcelona-4s",     "barcelona-8s",  "xeon-e7-16s",
          "opteron-6172-4s", "xeon-e7-8867l-8s", "skylake-sp-2s", "cascade-lake-2s",
          "ice-lake-2s",     "epyc-7r13-2s",     "host"};
}

MachineConfig make_preset(std::string_view name) {
  if (name == "nehalem-2s") return nehalem_2s();
  if (name == "barcelona-4s") return barcelona_4s();
  if (name == "barcelona-8s") return barcelona_8s();
  if (name == "xeon-e7-16s") return xeon_e7_16s();
  if (name == "opteron-6172-4s") return opteron_6172_4s();
  if (name == "xeon-e7-8867l-8s") return xeon_e7_8867l_8s();
  if (name == "skylake-sp-2s") return skylake_sp_2s();
  if (name == "cascade-lake-2s") return cascade_lake_2s();
  if (name == "ice-lake-2s") return ice_lake_2s();
  if (name == "epyc-7r13-2s") return epyc_7r13_2s();
  if (name == "host") return host_machine();
  throw std::out_of_range(fmt::format("unknown machine preset '{}'", name));
}

}  // namespace lockstep::sim::machine
