// lock-counter: T threads each increment one shared counter K times under a spinlock. The
// increment is a plain load and store, so only mutual exclusion keeps the count exact:
// at the end the counter must be T * K (property `mutual_exclusion`).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "core/platform.hpp"
#include "core/sync/spin_guard.hpp"
#include "core/sync/spinlock.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

struct LockCounterParams {
  SpinlockKind lock = SpinlockKind::ticket;
  int threads = 2;
  int iterations = 10;
  int cpus = 2;  // threads are pinned round robin over this many CPUs
};

template <Platform P>
class LockCounter {
 public:
  static constexpr WorkloadHooks kHooks{};  // setup and check only

  explicit LockCounter(const LockCounterParams& params) : params_(params) {}
  ~LockCounter() {
    if (state_ != nullptr) destroy_on<P>(state_);
  }
  LockCounter(const LockCounter&) = delete;
  LockCounter& operator=(const LockCounter&) = delete;

  void setup(const SpawnFn& spawn) {
    state_ = make_on<P, State>(0, kCacheLineBytes, params_.lock);
    P::label(&state_->lock, sizeof(state_->lock), "lock");
    P::label(&state_->counter, sizeof(state_->counter), "counter");
    // fmt, not "t" + std::to_string(i): in -O3 builds GCC 12 reports a false -Wrestrict on
    // that concatenation once this function is inlined into the CLI's runner.
    for (int i = 0; i < params_.threads; ++i) spawn(fmt::format("t{}", i), i % params_.cpus, [this] { body(); });
  }

  void check() const {
    const std::uint64_t expected = static_cast<std::uint64_t>(params_.threads) * params_.iterations;
    const std::uint64_t got = state_->counter.load();
    if (got != expected)
      P::violation("mutual_exclusion", "counter is " + std::to_string(got) + ", expected " +
                                           std::to_string(expected) + ": increments were lost");
  }

  std::uint64_t counter() const { return state_->counter.load(); }

 private:
  struct State {
    explicit State(SpinlockKind kind) : lock(kind) {}
    AnySpinlock<P> lock;
    alignas(kCacheLineBytes) typename P::template Shared<std::uint64_t> counter{0};
  };

  void body() {
    for (int k = 0; k < params_.iterations; ++k) {
      const SpinGuard<AnySpinlock<P>> guard(state_->lock);  // its node is on this thread's stack
      state_->counter.store(state_->counter.load() + 1);
    }
  }

  LockCounterParams params_;
  State* state_ = nullptr;
};

}  // namespace lockstep
