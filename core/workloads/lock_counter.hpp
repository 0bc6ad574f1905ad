// lock-counter: T threads each increment one shared counter K times under a spinlock. The
// increment is a plain load and store, so only mutual exclusion keeps the count exact:
// at the end the counter must be T * K (property `mutual_exclusion`). With `cs_work`, each
// critical section also does that many instructions of simulated compute (the SOSP'13 lock
// experiments' critical section of N cycles); the rate is acquisitions per second from the
// first thread's start to the last one's end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/platform.hpp"
#include "core/properties.hpp"
#include "core/sync/spin_guard.hpp"
#include "core/sync/spinlock.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

struct LockCounterParams {
  SpinlockKind lock = SpinlockKind::ticket;
  int threads = 2;
  int iterations = 10;
  int cpus = 2;               // threads are pinned round robin over this many CPUs
  std::uint32_t cs_work = 0;  // instructions of compute in each critical section (simulated only)
};

template <Platform P>
class LockCounter {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  explicit LockCounter(const LockCounterParams& params) : params_(params) {}
  ~LockCounter() {
    if (state_ != nullptr) destroy_on<P>(state_);
    for (Node* node : nodes_) destroy_on<P>(node);
  }
  LockCounter(const LockCounter&) = delete;
  LockCounter& operator=(const LockCounter&) = delete;

  void setup(const SpawnFn& spawn) {
    state_ = make_on<P, State>(0, kCacheLineBytes, params_.lock);
    P::label(&state_->lock, sizeof(state_->lock), "lock");
    P::label(&state_->counter, sizeof(state_->counter), "counter");
    // fmt, not "t" + std::to_string(i): in -O3 builds GCC 12 reports a false -Wrestrict on
    // that concatenation once this function is inlined into the CLI's runner.
    spans_.assign(static_cast<std::size_t>(params_.threads), {0, 0});
    if (params_.lock == SpinlockKind::clh) {
      for (int i = 0; i < params_.threads; ++i) {
        nodes_.push_back(make_on<P, Node>(P::node_of(i % params_.cpus), kCacheLineBytes));
        P::label(nodes_.back(), sizeof(Node), fmt::format("node.t{}", i));
      }
    }
    for (int i = 0; i < params_.threads; ++i) spawn(fmt::format("t{}", i), i % params_.cpus, [this, i] { body(i); });
  }

  void check() const {
    const std::uint64_t expected = static_cast<std::uint64_t>(params_.threads) * params_.iterations;
    const std::uint64_t got = state_->counter.load();
    if (got != expected)
      P::violation(property::mutual_exclusion, "counter is " + std::to_string(got) + ", expected " +
                                                   std::to_string(expected) + ": increments were lost");
  }

  std::uint64_t counter() const { return state_->counter.load(); }

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.values.emplace_back("threads", params_.threads);
    std::uint64_t first = ~std::uint64_t{0}, last = 0;
    for (const auto& [start, end] : spans_) {
      first = std::min(first, start);
      last = std::max(last, end);
    }
    const double acquisitions = static_cast<double>(params_.threads) * params_.iterations;
    const double ns = last > first ? static_cast<double>(last - first) : 0;
    m.values.emplace_back("acquisitions_per_s", ns > 0 ? acquisitions * 1e9 / ns : 0);
    m.values.emplace_back("ns_per_acquisition", acquisitions > 0 ? ns / acquisitions : 0);
    return m;
  }

 private:
  struct State {
    explicit State(SpinlockKind kind) : lock(kind) {}
    AnySpinlock<P> lock;
    alignas(kCacheLineBytes) typename P::template Shared<std::uint64_t> counter{0};
  };

  void body(int i) {
    const std::uint64_t start = P::now();
    if (params_.lock == SpinlockKind::clh) {
      // CLH's nodes pass between threads and must live as long as the lock (clh_lock.hpp):
      // one per thread in platform memory on its CPU's node, freed with the workload.
      Node& node = *nodes_[static_cast<std::size_t>(i)];
      for (int k = 0; k < params_.iterations; ++k) {
        state_->lock.lock(node);
        critical_section();
        state_->lock.unlock(node);
      }
    } else {
      for (int k = 0; k < params_.iterations; ++k) {
        const SpinGuard<AnySpinlock<P>> guard(state_->lock);  // its node is on this thread's stack
        critical_section();
      }
    }
    spans_[static_cast<std::size_t>(i)] = {start, P::now()};
  }

  void critical_section() {
    state_->counter.store(state_->counter.load() + 1);
    if (params_.cs_work > 0) P::charge(Work::compute, params_.cs_work);
  }

  using Node = typename AnySpinlock<P>::Node;

  LockCounterParams params_;
  State* state_ = nullptr;
  std::vector<Node*> nodes_;                                    // CLH only: per thread
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans_;  // per thread: start and end
};

}  // namespace lockstep
