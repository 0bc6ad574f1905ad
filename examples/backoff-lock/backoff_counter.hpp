// The workload that exercises the lock: T threads each add 1 to a plain counter K times under
// it; at the end the counter must be T * K (lockstep's `mutual_exclusion` property). Written
// as lockstep's own workloads are (core/workloads/lock_counter.hpp), so the same code runs in
// the simulator, under the model checker and natively.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backoff_lock.hpp"
#include "core/platform.hpp"
#include "core/properties.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace example {

struct BackoffCounterParams {
  int threads = 2;
  int iterations = 2;
  int cpus = 2;
  bool broken = false;
};

template <lockstep::Platform P>
class BackoffCounter {
 public:
  static constexpr lockstep::WorkloadHooks kHooks{.metrics = true};

  explicit BackoffCounter(const BackoffCounterParams& params) : params_(params) {}
  ~BackoffCounter() {
    if (state_ != nullptr) lockstep::destroy_on<P>(state_);
  }
  BackoffCounter(const BackoffCounter&) = delete;
  BackoffCounter& operator=(const BackoffCounter&) = delete;

  void setup(const lockstep::SpawnFn& spawn) {
    state_ = lockstep::make_on<P, State>(0, lockstep::kCacheLineBytes);
    P::label(&state_->counter, sizeof(state_->counter), "counter");
    spans_.assign(static_cast<std::size_t>(params_.threads), {0, 0});
    for (int i = 0; i < params_.threads; ++i) spawn(fmt::format("t{}", i), i % params_.cpus, [this, i] { body(i); });
  }

  void check() const {
    const std::uint64_t expected = static_cast<std::uint64_t>(params_.threads) * params_.iterations;
    const std::uint64_t got = state_->counter.load();
    if (got != expected)
      P::violation(lockstep::property::mutual_exclusion,
                   fmt::format("counter is {}, expected {}: two threads held the lock at once", got, expected));
  }

  lockstep::WorkloadMetrics metrics() const {
    lockstep::WorkloadMetrics m;
    m.values.emplace_back("threads", params_.threads);
    std::uint64_t first = ~std::uint64_t{0}, last = 0;
    for (const auto& [start, end] : spans_) {
      first = std::min(first, start);
      last = std::max(last, end);
    }
    const double n = static_cast<double>(params_.threads) * params_.iterations;
    m.values.emplace_back("acquisitions_per_s", last > first ? n * 1e9 / static_cast<double>(last - first) : 0);
    return m;
  }

 private:
  struct State {
    BackoffLock<P, false> lock;
    BackoffLock<P, true> broken_lock;
    alignas(lockstep::kCacheLineBytes) typename P::template Shared<std::uint64_t> counter{0};
  };

  template <class Lock>
  void run(Lock& lock) {
    for (int k = 0; k < params_.iterations; ++k) {
      lock.lock();
      state_->counter.store(state_->counter.load() + 1);
      lock.unlock();
    }
  }

  void body(int i) {
    const std::uint64_t start = P::now();
    if (params_.broken) {
      run(state_->broken_lock);
    } else {
      run(state_->lock);
    }
    spans_[static_cast<std::size_t>(i)] = {start, P::now()};
  }

  BackoffCounterParams params_;
  State* state_ = nullptr;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans_;
};

}  // namespace example
