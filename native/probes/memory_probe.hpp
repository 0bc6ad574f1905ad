// `lockstep native probe memory`: the host's load-to-use latency by buffer size, measured as
// lmbench's lat_mem_rd and Intel MLC do, by a dependent pointer chase (chase_cycle.hpp)
// over a random cycle through every line of the buffer, from one pinned CPU, with the
// buffer on each NUMA node in turn. The result is what the simulator's latency-probe
// reports for one size (sim/machine/probes.hpp): a latency histogram in 1 ns bins and its
// peaks, found by the same functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/latency_histogram.hpp"
#include "measure/latency_summary.hpp"
#include "native/probes/clock.hpp"
#include "native/probes/limits.hpp"

namespace lockstep::native::probes {

// Dependent loads between two clock readings. One reading pair costs some tens of
// nanoseconds; 256 loads of at least ~1 ns each make that a small part of a batch, and
// subtracting the pair's measured cost (Clock::empty_interval_ticks) removes most of the
// rest. The loop's own counter runs beside the chain of loads, off its critical path, so
// it is not subtracted.
inline constexpr std::uint64_t kBatchLoads = 256;
// Batches every size gets even when its share of the budget is spent: a few milliseconds
// at DRAM latency, 16384 accesses, enough for a median.
inline constexpr std::uint64_t kMinBatches = 64;
inline constexpr std::uint64_t kMinProbeBytes = 4096;
// Used when sysfs lists no cache (as in some VMs): [guess] larger than the last level of
// one socket of current x86 servers (AMD's 32 MiB L3 per CCD, Intel's up to ~60 MiB
// shared), so 4 times it reaches DRAM.
inline constexpr std::uint64_t kAssumedLlcBytes = 64ULL << 20;

struct LastLevelCache {
  std::uint64_t bytes = 0;
  bool known = false;  // false: sysfs listed no cache and `bytes` is kAssumedLlcBytes
};
// The largest cache sim/machine/host_topology.hpp reads for the first CPU.
LastLevelCache host_last_level_cache(const std::string& sysfs_root = "/sys");

// 4 KiB, 6 KiB, 8 KiB, 12 KiB, ...: powers of two and 1.5 times each, up to the first
// power of two at or above `max_bytes`.
std::vector<std::uint64_t> memory_probe_sizes(std::uint64_t max_bytes);

struct MemoryProbeOptions {
  ProbeLimits limits;
  std::vector<std::uint64_t> sizes_bytes;  // empty: memory_probe_sizes(4 x the last-level cache)
  std::optional<int> node;                 // only this NUMA node; none: every node with memory
  bool huge_pages = true;                  // madvise(MADV_HUGEPAGE) where THP allows it
  std::uint64_t seed = 1;                  // of the chase's route
  Clock::Source clock = Clock::Source::automatic;
};

struct MemorySizeResult {
  std::uint64_t bytes = 0;
  int node = 0;  // the node the buffer was bound to; 0 on a host with one node
  // Per access: a batch's time, less the clock's own cost, over kBatchLoads. Each sample is
  // one batch, so it averages 256 accesses: a buffer between two cache levels shows one
  // peak at the mix, where the simulator's per-access histogram shows two.
  measure::LatencySummary latency;
  measure::LatencyCounts counts;                 // per-access latency of each batch, rounded to whole ns -> batches
  std::vector<measure::HistogramBin> histogram;  // counts in 1 ns bins, as the simulator's latency-probe
  std::vector<double> peaks_ns;                  // measure::find_peaks(counts)
  std::uint64_t accesses = 0;                    // timed loads: samples x kBatchLoads
};

// One mapping per node, shared by that node's sizes.
struct MemoryBuffer {
  int node = 0;
  std::uint64_t bytes = 0;            // mapped, a multiple of 2 MiB
  bool huge_pages_requested = false;  // madvise(MADV_HUGEPAGE) succeeded
  std::uint64_t anon_huge_bytes = 0;  // of it, in transparent huge pages (smaps AnonHugePages) at the end
};

struct MemoryProbeResult {
  ClockInfo clock;
  int cpu = 0;  // the CPU the chase ran on: the first the process may use
  int numa_nodes = 1;
  LastLevelCache llc;
  std::string thp_mode;          // always, madvise, never; empty without THP
  double clock_overhead_ns = 0;  // an empty interval's time, subtracted from every batch
  std::vector<MemoryBuffer> buffers;
  std::vector<MemorySizeResult> sizes;  // node by node, each in increasing size; measured ones only
  std::vector<std::string> notes;
  double seconds = 0;  // the budget
  double elapsed_s = 0;
  bool interrupted = false;
};

// Shares the budget evenly among nodes x sizes (building a size's cycle counts in its
// share). Throws std::invalid_argument for a size below 64 bytes.
MemoryProbeResult memory_probe(const MemoryProbeOptions& options);

// One size on one node (for `lockstep compare` against a latency-probe scenario's bytes);
// node < 0: as memory_probe, every node.
MemoryProbeResult memory_probe_one(std::uint64_t bytes, const ProbeLimits& limits, int node = -1);

}  // namespace lockstep::native::probes
