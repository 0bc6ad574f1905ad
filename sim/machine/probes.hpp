// The machine workloads of the seed's measurements, run on the simulated machine:
//  - latency-probe: dependent random reads over a buffer of a given size and placement from
//    one CPU, one latency per access (the seed's method: random accesses so that neither
//    prefetching nor locality helps, with buffers large enough to miss every cache, or small
//    enough to hit one level);
//  - c2c: a CAS ping-pong on one line between two CPUs, for every pair: the one-way
//    core-to-core latency matrix (round trip / 2, as core-to-core-latency reports it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "measure/latency_histogram.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/memory.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::sim::machine {

struct LatencyProbeParams {
  std::uint64_t bytes = 128ULL << 20;
  Placement placement{true, 0};
  CpuId cpu = 0;
  std::uint64_t samples = 20000;
  std::uint64_t seed = 1;
  // Touch every line once before measuring, so that a buffer that fits a cache is in it.
  // Worth it only up to some size: past the last level, random reads miss anyway.
  std::uint64_t warmup_max_bytes = 64ULL << 20;
};

// The histogram and its peaks (measure/latency_histogram.hpp), which the native memory probe
// shares.
using measure::find_peaks;
using measure::histogram;
using measure::HistogramBin;
using measure::LatencyCounts;
using measure::Peak;

class LatencyProbe final : public SimWorkload {
 public:
  explicit LatencyProbe(LatencyProbeParams params) : params_(params) {}
  void setup(Engine& engine) override;
  void check(Engine&) override {}
  const LatencyCounts& counts() const { return counts_; }

 private:
  LatencyProbeParams params_;
  LatencyCounts counts_;
};

struct C2cParams {
  bool smt = false;  // include pairs of SMT siblings (one core)
  // The CPUs to measure, each pair of them (empty: every CPU, one per core unless `smt`); a
  // big machine's distances show in a few (its 80 cores are 3,160 pairs).
  std::vector<CpuId> cpus;
  int rounds = 100;        // measured round trips per pair
  int warmup_rounds = 10;  // round trips before measuring
  // The token's node (core-to-core-latency's token is its main thread's); default: the
  // pair's first CPU's node.
  std::optional<NodeId> home;
};

struct C2cResult {
  std::vector<CpuId> cpus;                      // the CPUs measured, in order
  std::vector<std::vector<double>> one_way_ns;  // [i][j] for cpus[i], cpus[j]; 0 on the diagonal
  std::uint64_t executions = 0;
  std::uint64_t memory_ops = 0;  // summed over the pairs' executions
};

// Runs one timed execution per pair of CPUs on `engine`; `first_pair_trace` (may be null)
// records the first pair's execution.
C2cResult run_c2c(Engine& engine, const C2cParams& params, const std::vector<int>& core_of_cpu, std::uint64_t seed,
                  TraceRecorder* first_pair_trace);

}  // namespace lockstep::sim::machine
