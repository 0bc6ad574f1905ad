// `lockstep native probe c2c`: the one-way core-to-core latency between every pair of CPUs
// this process may use, measured as the core-to-core-latency tool and the simulator's c2c
// (sim/machine/probes.hpp) do: two threads, pinned to the two CPUs, pass a token through
// one cache line with compare-and-swap; one way is a round trip / 2. Before the pairs, the
// first CPU times what a locked instruction and a full fence cost without contention: a
// fetch_add on a line of its own, and a seq_cst fence (mfence on x86), each in a dependent
// chain so that they do not overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "native/probes/clock.hpp"
#include "native/probes/limits.hpp"

namespace lockstep::native::probes {

// Above this many allowed CPUs a sample is measured (pairs grow as the square).
inline constexpr std::size_t kMaxC2cCpus = 64;

struct C2cProbeOptions {
  ProbeLimits limits;
  std::size_t max_cpus = kMaxC2cCpus;
  // Round trips per timed batch: [guess] 100 makes a batch some microseconds at the
  // 30-150 ns one-way latencies of current parts, so the clock's cost is below 1%.
  int rounds_per_batch = 100;
  // Round trips before timing, so both caches and both cores' frequencies have settled.
  int warmup_rounds = 1000;  // [guess]
  Clock::Source clock = Clock::Source::automatic;
};

struct C2cProbeResult {
  ClockInfo clock;
  std::vector<int> allowed_cpus;
  std::vector<int> cpus;  // measured: every allowed CPU, or every `cpu_step`-th
  int cpu_step = 1;
  // [i][j]: the one-way latency between cpus[i] and cpus[j], the least median over five
  // consecutive parts of its batches (the median of all with fewer than 15 batches);
  // symmetric, 0 on the diagonal; empty with fewer than two CPUs.
  std::vector<std::vector<double>> one_way_ns;
  std::vector<std::vector<std::uint64_t>> batches;  // [i][j]: timed batches behind the median
  // On cpus[0], the median over batches: a locked fetch_add on a line no other CPU touches,
  // and a seq_cst fence between two dependent loads (less the loads' own L1 time); 0 when
  // not measured.
  double own_line_rmw_ns = 0;
  double fence_ns = 0;
  double pause_ns = 0;  // one spin hint (NativePlatform::cpu_relax), back to back
  // cpus[0] and cpus[1] adding to one counter with locked fetch_adds, as fast as they can:
  // the mean run of consecutive values one CPU's adds returned, the adds the line carried
  // each time it moved (the median of kAddRuns runs); 0 with fewer than two CPUs.
  double adds_per_handover = 0;
  // cpus[0] writes a fresh line, cpus[1] loads it, and cpus[0] loads it again: that load,
  // the median over kRereadLines lines, less the clock's own cost. A hit where the reader
  // shared the line; a transfer where the read took it whole (calibration's
  // migratory_reads); 0 with fewer than two CPUs.
  double writer_reread_ns = 0;
  // cpus[0] and cpus[1]'s ping-pong with each round trip timed on its own: the interquartile
  // range of their halves, the least over 5 series of 1000, how much one pass varies
  // (calibration's transfer_jitter_ns); 0 with fewer than two CPUs.
  double one_way_iqr_ns = 0;
  int rounds_per_batch = 0;
  std::vector<std::string> notes;
  double seconds = 0;
  double elapsed_s = 0;
  bool interrupted = false;
};

// Shares the budget evenly among the pairs; every pair gets a few batches even when its
// share is spent.
C2cProbeResult c2c_probe(const C2cProbeOptions& options);

}  // namespace lockstep::native::probes
