// The two-socket Xeons. "MLC" is Intel's Memory Latency Checker run on each machine, as
// published by the VSC (github.com/hpcleuven/VscDocumentation at f320f4f8) and FD.io CSIT's
// calibration pages (github.com/FDio/csit, docs/report/introduction/
// test_environment_sut_calib_*.rst): idle local and remote memory latency, a load of a line
// clean or modified (HITM) in another core's L2 of the same socket, and a load of a line
// modified in the other socket with the line's home on the writer's socket or on the
// reader's. "C2C" is core-to-core-latency's CAS ping-pong (github.com/nviennot/
// core-to-core-latency at 96a943a), for the SMT sibling's figure. Vendor facts are Intel's
// (ark.intel.com and the Xeon Scalable optimization manuals). [derived] and [guess] as in
// presets.cpp.
//
// The fit. With the home snoop and, on Skylake-SP and Cascade Lake, the directory in memory
// (memory_system.cpp): local memory = uncore + DRAM; remote memory adds a request and a data
// message over UPI; a remote HITM with the home on the writer's socket = uncore + request +
// remote_cache + data; with the home on the reader's, the home's DRAM read of the directory
// comes first. So DRAM = HITM(reader home) - HITM(writer home); uncore = local - DRAM; the
// messages = remote - local; remote_cache = HITM(writer home) - messages - uncore.
#include "sim/machine/presets_xeon_2s.hpp"
#include "sim/machine/scaled_os_costs.hpp"

#include <cstdint>

namespace lockstep::sim::machine {

namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

// What the three share: two sockets, SMT, a private L2 and a non-inclusive shared L3 (Intel:
// Skylake-SP made the L3 a non-inclusive victim cache; Ice Lake-SP kept it), MESIF, one UPI
// link standing for the two or three the sockets have [simplification: the model has one
// link per pair of packages, carrying one link's bandwidth].
MachineConfig xeon_2s_base(double ghz) {
  MachineConfig c;
  c.boards = 1;
  c.packages = 2;
  c.threads_per_core = 2;   // Intel: Hyper-Threading
  c.smt_work_factor = 1.6;  // [guess] as nehalem-2s
  c.coherence = Coherence::home_snoop;
  c.line_states = LineStates::mesif;
  c.inclusive_llc = false;
  c.probe_ns = 5;               // [guess] a snoop filter lookup, as nehalem-2s
  c.request_bytes = 16;         // [guess] a UPI request: header flits
  c.data_bytes = 80;            // [derived] a 64-byte line and its header
  c.store_buffer_entries = 56;  // Intel: Skylake's store buffer
  c.os = scaled_os_costs(ghz);
  c.os.pause_ns = 40;                 // Intel: Skylake's pause takes ~140 cycles (optimization manual)
  c.dram.open_row_saving_ns = 13.75;  // [derived] DDR4-2666 CL19: tRCD = 19 / 1333 MHz = 14.25; ~13.75 for 2933
  c.dram.row_bytes = 8192;            // [derived] x8 DDR4: 1 KiB page * 8 devices
  c.dram.banks = 96;                  // [derived] 6 channels * 16 banks (DDR4); [guess] one rank each
  c.dram.refresh_interval_ns = 7800;  // JEDEC DDR4 tREFI
  c.dram.refresh_busy_ns = 350;       // JEDEC DDR4 tRFC1 for 8 Gb devices [guess at the density]
  return c;
}

// Skylake-SP and Cascade Lake (the same core and uncore): 32 KiB L1 and 1 MiB L2 per core
// (Intel), a non-inclusive L3 of 1.375 MiB a core (Intel: 11-way; [simplification] 32 MiB
// of 16 ways, power-of-two sets; hit [guess] ~55 cycles over the mesh, 22 ns), and the
// directory in memory: MLC's remote HITM costs 62-64 ns more with the reader's socket home.
MachineConfig with_memory_directory(MachineConfig c, double l1_ns, double l2_ns) {
  c.caches = {
      CacheLevel{"L1", 32 * kKiB, 8, l1_ns, CacheScope::core, Replacement::lru},
      CacheLevel{"L2", 1 * kMiB, 16, l2_ns, CacheScope::core, Replacement::lru},
      CacheLevel{"L3", 32 * kMiB, 16, 22, CacheScope::package, Replacement::lru},
  };
  c.memory_directory = true;
  // [derived] core-to-core-latency's Cascade Lake SMT sibling, 7.4-7.6 ns, less an L1 hit.
  c.locked_ns = 5.9;
  return c;
}

// What MLC measured on one machine, in ns.
struct MlcFigures {
  double local, remote;                       // idle memory latency
  double clean_socket, hitm_socket;           // a line clean / modified in another core's L2 of the socket
  double hitm_writer_home, hitm_reader_home;  // modified in the other socket, by the line's home
};

// Solves the model's sums for MLC's figures (the fit above) over one UPI link of
// `bytes_per_ns`. Without a directory in memory the two remote HITMs are equal and the DRAM
// is not separated from the uncore by them: `uncore_ns` is then the caller's guess.
void fit_to_mlc(MachineConfig& c, const MlcFigures& mlc, double bytes_per_ns, double uncore_guess) {
  const double messages = mlc.remote - mlc.local;  // a request and a data message over UPI
  const double serialisation = (c.request_bytes + c.data_bytes) / bytes_per_ns;
  c.links = {Link{0, 1, (messages - serialisation) / 2, bytes_per_ns}};
  c.dram.latency_ns = c.memory_directory ? mlc.hitm_reader_home - mlc.hitm_writer_home : mlc.local - uncore_guess;
  c.uncore_ns = mlc.local - c.dram.latency_ns;
  c.remote_cache_ns = mlc.hitm_writer_home - messages - c.uncore_ns;
  c.c2c_same_package_ns = mlc.hitm_socket;
  c.c2c_clean_same_package_ns = mlc.clean_socket;
}

// A Skylake-SP or Cascade Lake pair: its name, cores, clock, L1 and L2 hits and MLC figures;
// UPI at 10.4 GT/s, 20.8 bytes/ns (Intel).
MachineConfig directory_xeon(const char* name, int cores, double ghz, double l1_ns, double l2_ns,
                             const MlcFigures& mlc) {
  MachineConfig c = with_memory_directory(xeon_2s_base(ghz), l1_ns, l2_ns);
  c.name = name;
  c.cores_per_package = cores;
  fit_to_mlc(c, mlc, 20.8, 0);
  return c;
}

}  // namespace

// --- 2 x Xeon Platinum 8180 (Skylake-SP, 28 cores, 2.5 GHz)
// MLC (VSC): local 81.4, remote 131, L2 clean and HITM in the socket 53.7 and 53.7, remote
// HITM 114 with the writer's socket home and 178 with the reader's. Intel: L1 4 cycles /
// 2.5 GHz = 1.6 ns, L2 14 cycles = 5.6 ns. The fit gives 22.5 ns a link, DRAM 64, uncore
// 17.4, remote_cache 47.
MachineConfig skylake_sp_2s() {
  return directory_xeon("skylake-sp-2s", 28, 2.5, 1.6, 5.6, MlcFigures{81.4, 131, 53.7, 53.7, 114, 178});
}

// --- 2 x Xeon Gold 6252N (Cascade Lake, 24 cores, 2.3 GHz)
// MLC (CSIT): local 81.2, remote 130, L2 clean 55.5 and HITM 55.6, remote HITM 116 / 178.
// Intel: L1 4 cycles / 2.3 GHz = 1.74 ns, L2 14 cycles = 6.1 ns. The fit: 22.1 ns a link,
// DRAM 62, uncore 19.2, remote_cache 48.
MachineConfig cascade_lake_2s() {
  return directory_xeon("cascade-lake-2s", 24, 2.3, 1.74, 6.1, MlcFigures{81.2, 130, 55.5, 55.6, 116, 178});
}

// --- 2 x Xeon Platinum 8360Y (Ice Lake-SP, 36 cores, 2.4 GHz)
// MLC (VSC, random access): local 89.2, remote 143, L2 clean 60.1 and HITM 64.2, remote HITM
// 127 whichever socket is home. UPI at 11.2 GT/s: 22.4 bytes/ns. The fit: 24.75 ns a link,
// uncore 20 [guess: the L3 miss over the mesh], DRAM 69.2, remote_cache 53.2.
MachineConfig ice_lake_2s() {
  MachineConfig c = xeon_2s_base(2.4);
  c.name = "ice-lake-2s";
  c.cores_per_package = 36;
  c.caches = {
      CacheLevel{"L1", 48 * kKiB, 12, 2.08, CacheScope::core, Replacement::lru},   // Intel: 48 KiB 12-way, 5 cycles
      CacheLevel{"L2", 1280 * kKiB, 20, 5.8, CacheScope::core, Replacement::lru},  // Intel: 1.25 MiB 20-way, 14 cycles
      // Intel: 54 MiB, 12-way; [simplification] 48 MiB of 12 ways (65,536 sets). Hit [guess] 24 ns.
      CacheLevel{"L3", 48 * kMiB, 12, 24, CacheScope::package, Replacement::lru},
  };
  c.memory_directory = false;  // MLC: the same 127 ns whichever socket is home
  // MLC: 60.1 clean, 64.2 HITM in the socket.
  fit_to_mlc(c, MlcFigures{89.2, 143, 60.1, 64.2, 127, 127}, 22.4, 20);
  c.locked_ns = 5.9;  // [derived] core-to-core-latency's 8375C (Ice Lake) SMT sibling, 8.0 ns, less an L1 hit (2.08)
  c.store_buffer_entries = 72;  // Intel: Sunny Cove's store buffer
  return c;
}

}  // namespace lockstep::sim::machine
