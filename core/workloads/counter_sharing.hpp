// counter-sharing: T threads each add 1 to a counter K times with fetch_add, the counters laid
// out three ways: `shared` (one counter for all: true sharing, every add moves the line),
// `packed` (one counter per thread, side by side in the same cache lines: false sharing, the
// same traffic without any data being shared) and `padded` (one counter per thread, each on
// a cache line of its own: no sharing). It is the smallest picture of why the futex table's
// buckets are cacheline-aligned (docs/sources.md section 1): on a modelled machine the
// packed layout costs like the shared one, the padded one like a private counter.
// At the end the counters must add up to T * K (property `lost_update`: an add was lost).
// The shared layout also reports `adds_per_handover`: the mean run of consecutive values one
// thread's adds returned, that is how many adds the line carried each time it moved (each
// thread sees a run start wherever an add does not return its own last result plus one).
// Natively it measures how long an owner keeps a contended line; `lockstep calibrate` fits
// the forward leg of the model's transfer to it (docs/machines.md, "Coherence in time").
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/platform.hpp"
#include "core/properties.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

enum class CounterLayout : std::uint8_t { shared, packed, padded };

// Adds 1 to `counter` `adds` times and returns how many runs of consecutive values the adds
// returned (a run starts wherever an add does not return this thread's last result plus
// one): the workload's and the native c2c probe's adds_per_handover both count this way.
template <class Counter>
std::uint64_t add_counting_runs(Counter& counter, std::uint64_t adds) {
  std::uint64_t runs = 0;
  std::uint64_t next = ~std::uint64_t{0};  // what the counter holds if nobody else added since
  for (std::uint64_t k = 0; k < adds; ++k) {
    const std::uint64_t old = counter.fetch_add(1, std::memory_order_relaxed);
    runs += old != next ? 1 : 0;
    next = old + 1;
  }
  return runs;
}

struct CounterSharingParams {
  CounterLayout layout = CounterLayout::padded;
  int threads = 2;
  int iterations = 1000;
  int cpus = 2;  // threads are pinned round robin over this many CPUs
};

template <Platform P>
class CounterSharing {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  explicit CounterSharing(const CounterSharingParams& params)
      : params_(params),
        elapsed_ns_(static_cast<std::size_t>(params.threads), 0),
        runs_(static_cast<std::size_t>(params.threads), 0) {}
  ~CounterSharing() {
    for (Line* line : lines_) destroy_on<P>(line);
  }
  CounterSharing(const CounterSharing&) = delete;
  CounterSharing& operator=(const CounterSharing&) = delete;

  void setup(const SpawnFn& spawn) {
    // Each Line is one cache line: packed puts kPerLine threads' counters on it, padded one.
    const int per_line = params_.layout == CounterLayout::packed ? kPerLine : 1;
    const int counters = params_.layout == CounterLayout::shared ? 1 : params_.threads;
    for (int i = 0; i < counters; i += per_line) {
      lines_.push_back(make_on<P, Line>(0, kCacheLineBytes));
      P::label(lines_.back(), sizeof(Line), fmt::format("line[{}]", lines_.size() - 1));
    }
    for (int i = 0; i < params_.threads; ++i) spawn(fmt::format("t{}", i), i % params_.cpus, [this, i] { body(i); });
  }

  void check() const {
    std::uint64_t sum = 0;
    for (const Line* line : lines_)
      for (const Counter& c : line->counters) sum += c.load();
    const std::uint64_t expected = static_cast<std::uint64_t>(params_.threads) * params_.iterations;
    if (sum != expected)
      P::violation(property::lost_update,
                   fmt::format("the counters add up to {}, expected {}: adds were lost", sum, expected));
  }

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("layout", name_of(params_.layout));
    m.values.emplace_back("threads", params_.threads);
    double rate = 0;
    std::uint64_t ns = 0;
    m.per_thread_name = "per_thread_ops_per_s";
    for (const std::uint64_t e : elapsed_ns_) {
      const double per_s = e == 0 ? 0 : params_.iterations * 1e9 / static_cast<double>(e);
      m.per_thread.push_back(per_s);
      rate += per_s;
      ns += e;
    }
    const double ops = static_cast<double>(params_.threads) * params_.iterations;
    m.values.emplace_back("ops_per_s", rate);
    m.values.emplace_back("ns_per_op", ops == 0 ? 0 : static_cast<double>(ns) / ops);
    if (params_.layout == CounterLayout::shared) {
      std::uint64_t runs = 0;
      for (const std::uint64_t r : runs_) runs += r;
      m.values.emplace_back("adds_per_handover", runs == 0 ? 0 : ops / static_cast<double>(runs));
    }
    return m;
  }

  static const char* name_of(CounterLayout layout) {
    switch (layout) {
      case CounterLayout::shared:
        return "shared";
      case CounterLayout::packed:
        return "packed";
      case CounterLayout::padded:
        return "padded";
    }
    return "?";
  }

 private:
  using Counter = typename P::template Atomic<std::uint64_t>;
  static constexpr int kPerLine = static_cast<int>(std::max<std::size_t>(1, kCacheLineBytes / sizeof(Counter)));
  struct alignas(kCacheLineBytes) Line {
    Counter counters[kPerLine] = {};
  };

  Counter& counter_of(int thread) {
    switch (params_.layout) {
      case CounterLayout::shared:
        return lines_[0]->counters[0];
      case CounterLayout::packed:
        return lines_[thread / kPerLine]->counters[thread % kPerLine];
      case CounterLayout::padded:
        break;
    }
    return lines_[static_cast<std::size_t>(thread)]->counters[0];
  }

  void body(int thread) {
    Counter& counter = counter_of(thread);
    const std::uint64_t start = P::now();
    const std::uint64_t runs = add_counting_runs(counter, static_cast<std::uint64_t>(params_.iterations));
    elapsed_ns_[static_cast<std::size_t>(thread)] = P::now() - start;
    runs_[static_cast<std::size_t>(thread)] = runs;
  }

  CounterSharingParams params_;
  std::vector<Line*> lines_;
  std::vector<std::uint64_t> elapsed_ns_;  // each thread writes its own slot once, then joins
  std::vector<std::uint64_t> runs_;        // per thread: the runs of consecutive values it started
};

}  // namespace lockstep
