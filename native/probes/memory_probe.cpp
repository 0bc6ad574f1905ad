#include "native/probes/memory_probe.hpp"

#include <numa.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "measure/sysfs.hpp"
#include "native/probes/chase_buffer.hpp"
#include "native/probes/chase_cycle.hpp"
#include "native/probes/pinned_threads.hpp"
#include "native/runner.hpp"

namespace lockstep::native::probes {

namespace {

void* volatile chase_end = nullptr;

// The nodes to bind the buffer to; {-1} (no binding) on a host with one node.
std::vector<int> probe_nodes(const MemoryProbeOptions& options, MemoryProbeResult& result) {
  const int configured = numa_available() >= 0 ? numa_num_configured_nodes() : 1;
  std::vector<int> nodes;
  if (configured > 1) {
    for (int n = 0; n <= numa_max_node(); ++n)
      if (numa_bitmask_isbitset(numa_all_nodes_ptr, static_cast<unsigned>(n)) && numa_node_size64(n, nullptr) > 0)
        nodes.push_back(n);
  }
  result.numa_nodes = nodes.empty() ? 1 : static_cast<int>(nodes.size());
  if (nodes.empty()) {
    result.notes.emplace_back("1 NUMA node: the buffer is not bound");
    if (options.node && *options.node != 0)
      throw std::invalid_argument(fmt::format("node {}: this host has one NUMA node, node 0", *options.node));
    return {-1};
  }
  if (options.node) {
    if (std::find(nodes.begin(), nodes.end(), *options.node) == nodes.end())
      throw std::invalid_argument(fmt::format("node {} has no memory this process may use", *options.node));
    return {*options.node};
  }
  result.notes.push_back(fmt::format("{} NUMA nodes: the buffer is bound to each in turn", nodes.size()));
  return nodes;
}

std::uint64_t whole_lines(std::uint64_t bytes) {
  if (bytes < kChaseLineBytes)
    throw std::invalid_argument(
        fmt::format("a memory probe size of {} bytes is below one {}-byte line", bytes, kChaseLineBytes));
  return (bytes + kChaseLineBytes - 1) / kChaseLineBytes * kChaseLineBytes;
}

// What one size's batches give: the simulator's figures over whole nanoseconds, the
// summary over the exact values.
MemorySizeResult size_result(std::uint64_t bytes, int node, std::vector<double> samples_ns) {
  MemorySizeResult r;
  r.bytes = bytes;
  r.node = node;
  for (double s : samples_ns) ++r.counts[static_cast<std::uint64_t>(std::llround(std::max(0.0, s)))];
  r.histogram = measure::histogram(r.counts, 1);
  r.peaks_ns.clear();
  for (const measure::Peak& p : measure::find_peaks(r.counts)) r.peaks_ns.push_back(p.centre_ns);
  r.accesses = samples_ns.size() * kBatchLoads;
  r.latency = measure::summarize(std::move(samples_ns));
  return r;
}

struct SizeContext {
  const Clock& clock;
  double overhead_ticks;
  const ProbeLimits& limits;
  std::uint64_t seed;
};

// Building a cycle costs time in proportion to its size (a random permutation, then a
// random write per line, the first of which faults the page in); the sizes still to build
// get that time set aside, so the last and largest are not left only kMinBatches. The rate
// is pooled over the builds of a MiB or more so far (smaller ones are dominated by fixed
// costs; a single build's rate swings with the page faults it happened to take); before
// the first, [guess] 0.8 ns per byte (this workplace's VM: a sweep to 256 MiB builds
// ~870 MiB of cycles in ~0.7 s, page faults included).
class BuildCost {
 public:
  void built(std::uint64_t bytes, double seconds) {
    if (bytes < (1ULL << 20)) return;
    seconds_ += seconds;
    bytes_ += static_cast<double>(bytes);
  }
  double seconds_for(std::uint64_t bytes) const {
    const double s_per_byte = bytes_ > 0 ? seconds_ / bytes_ : kGuessSecondsPerByte;
    return s_per_byte * static_cast<double>(bytes);
  }

 private:
  static constexpr double kGuessSecondsPerByte = 0.8e-9;
  double seconds_ = 0;
  double bytes_ = 0;
};

// Times batches of the chase from `p` until `part_end` (at least kMinBatches), after a
// lap to warm it for up to a tenth of the time.
std::vector<double> time_batches(const SizeContext& c, void* p, std::uint64_t bytes,
                                 Deadline::Clock::time_point part_end) {
  // One lap, so that a buffer that fits a cache is in it; past the last level a lap only
  // costs time, so it stops at a tenth of the share.
  constexpr std::uint64_t kWarmChunk = 4096;
  const std::uint64_t lines = bytes / kChaseLineBytes;
  const auto warm_end = Deadline::Clock::now() + (part_end - Deadline::Clock::now()) / 10;
  for (std::uint64_t done = 0; done < lines && Deadline::Clock::now() < warm_end; done += kWarmChunk)
    p = chase(p, std::min(kWarmChunk, lines - done));
  std::vector<double> samples_ns;
  for (;;) {
    const std::uint64_t t0 = c.clock.start();
    p = chase(p, kBatchLoads);
    const std::uint64_t t1 = c.clock.stop();
    samples_ns.push_back(c.clock.ns(static_cast<double>(t1 - t0) - c.overhead_ticks) /
                         static_cast<double>(kBatchLoads));
    if (samples_ns.size() >= kMinBatches && (Deadline::Clock::now() >= part_end || c.limits.stopped())) break;
  }
  // The chase's end must be used, or the compiler may drop the loads.
  chase_end = p;
  return samples_ns;
}

void run_memory_probe(const MemoryProbeOptions& options, const Deadline& deadline, MemoryProbeResult& result) {
  std::vector<std::uint64_t> sizes = options.sizes_bytes;
  if (sizes.empty()) sizes = memory_probe_sizes(4 * result.llc.bytes);
  for (std::uint64_t& s : sizes) s = whole_lines(s);
  const std::vector<int> nodes = probe_nodes(options, result);
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  const bool huge = options.huge_pages && (result.thp_mode == "always" || result.thp_mode == "madvise");
  const Clock clock(options.clock);
  result.clock = clock.info();
  const SizeContext context{clock, clock.empty_interval_ticks(), options.limits, options.seed};
  result.clock_overhead_ns = clock.ns(context.overhead_ticks);
  const std::size_t parts = nodes.size() * sizes.size();
  std::size_t parts_left = parts;
  std::uint64_t bytes_left = 0;
  for (std::uint64_t bytes : sizes) bytes_left += bytes * nodes.size();
  BuildCost build_cost;
  // Past the deadline every size is still measured, with the fewest batches: a sweep with
  // holes is worth less than one that ran late by its buffers' setup.
  bool over_budget = false;
  for (int node : nodes) {
    const ChaseBuffer buffer(largest, node, huge);
    for (std::uint64_t bytes : sizes) {
      if (options.limits.stopped()) result.interrupted = true;
      if (result.interrupted) break;
      if (deadline.passed() && !over_budget) {
        over_budget = true;
        result.notes.push_back(
            fmt::format("the budget is spent with {} of {} sizes to go: each gets {} batches, "
                        "after building its cycle",
                        parts_left, parts, kMinBatches));
      }
      const auto build_start = Deadline::Clock::now();
      void* start = build_chase_cycle(buffer.data(), bytes, options.seed, [&] { return !options.limits.stopped(); });
      build_cost.built(bytes, std::chrono::duration<double>(Deadline::Clock::now() - build_start).count());
      bytes_left -= bytes;
      if (start == nullptr) {
        result.interrupted = true;
        break;
      }
      const auto part_end = deadline.next_part_end(parts_left--, build_cost.seconds_for(bytes_left));
      result.sizes.push_back(size_result(bytes, node < 0 ? 0 : node, time_batches(context, start, bytes, part_end)));
    }
    result.buffers.push_back(MemoryBuffer{node < 0 ? 0 : node, buffer.bytes(), buffer.huge_pages_requested(),
                                          anon_huge_bytes(buffer.data())});
    if (result.interrupted) break;
  }
  // A stop during the last size cut its batches short.
  result.interrupted = result.interrupted || options.limits.stopped();
}

}  // namespace

LastLevelCache host_last_level_cache(const std::string& sysfs_root) {
  // The caches of the lowest-numbered CPU that lists any, levels 1 to 3 as the model has them
  // (sim/machine/host_topology.cpp reads the same files for the host preset).
  namespace fs = std::filesystem;
  constexpr int kMaxLevel = 3;
  const fs::path cpus = fs::path(sysfs_root) / "devices/system/cpu";
  std::vector<int> numbers;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(cpus, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 3 && name.starts_with("cpu") &&
        std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      numbers.push_back(std::stoi(name.substr(3)));
  }
  std::sort(numbers.begin(), numbers.end());
  for (const int cpu : numbers) {
    const std::vector<measure::HostCache> caches = measure::read_caches(cpus / fmt::format("cpu{}/cache", cpu));
    std::uint64_t largest = 0;
    for (const measure::HostCache& c : caches)
      if (c.level <= kMaxLevel) largest = std::max(largest, c.size_bytes);
    if (largest > 0) return LastLevelCache{largest, true};
  }
  return LastLevelCache{kAssumedLlcBytes, false};
}

std::vector<std::uint64_t> memory_probe_sizes(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = kMinProbeBytes;; s *= 2) {
    sizes.push_back(s);
    if (s >= max_bytes) break;
    sizes.push_back(s + s / 2);
  }
  return sizes;
}

MemoryProbeResult memory_probe(const MemoryProbeOptions& options) {
  const Deadline deadline(options.limits.seconds);
  MemoryProbeResult result;
  result.seconds = options.limits.seconds;
  result.llc = host_last_level_cache();
  if (!result.llc.known)
    result.notes.push_back(
        fmt::format("no cache in sysfs: the last level is taken as {} MiB [guess]", kAssumedLlcBytes >> 20));
  result.thp_mode = transparent_huge_page_mode();
  result.cpu = allowed_cpus().front();
  // On its own pinned thread, so the caller's affinity is left alone.
  run_pinned(result.cpu, [&] { run_memory_probe(options, deadline, result); });
  result.elapsed_s = deadline.elapsed_s();
  return result;
}

MemoryProbeResult memory_probe_one(std::uint64_t bytes, const ProbeLimits& limits, int node) {
  MemoryProbeOptions options;
  options.limits = limits;
  options.sizes_bytes = {bytes};
  if (node >= 0) options.node = node;
  return memory_probe(options);
}

}  // namespace lockstep::native::probes
