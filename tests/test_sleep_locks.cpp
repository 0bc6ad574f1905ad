// The sleeping locks of core/sync/: a mutex, a reader-writer lock and a range lock,
// each tested once as a template over the platform and run natively on real threads and in
// simulation under random schedules, as the spinlock counter test is (test_spinlocks.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/sync/range_lock.hpp"
#include "core/sync/sleep_mutex.hpp"
#include "core/sync/sleep_rwlock.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;

namespace {

constexpr int kSlots = 4;  // range lock: counters, one per "byte" of a 4-byte file

struct LockTestParams {
  int threads = 4;
  int iterations = 20;
};

// Every lock under test guards plain counters: a thread holding it exclusively (mutex,
// rwlock writer, range writer) bumps every counter it covers with a load and a store;
// a shared holder (rwlock reader, range reader) checks that the counters it covers agree,
// which they do only if no writer is half way through. At the end each counter must equal
// the increments made, or mutual exclusion failed.
template <Platform P>
class SleepLockWorkload {
 public:
  static constexpr WorkloadHooks kHooks{};
  explicit SleepLockWorkload(const LockTestParams& params) : params_(params) {}
  ~SleepLockWorkload() {
    if (s_ != nullptr) destroy_on<P>(s_);
  }
  SleepLockWorkload(const SleepLockWorkload&) = delete;
  SleepLockWorkload& operator=(const SleepLockWorkload&) = delete;

  void setup(const SpawnFn& spawn) {
    s_ = make_on<P, State>(0, kCacheLineBytes);
    for (int t = 0; t < params_.threads; ++t) spawn(fmt::format("t{}", t), t % 4, [this, t] { body(t); });
  }

  void check() const {
    for (int i = 0; i < kSlots; ++i)
      if (s_->range_slots[i].load() != expected_range_[static_cast<std::size_t>(i)])
        P::violation("mutual_exclusion", fmt::format("range slot {} lost increments", i));
    const auto writes = static_cast<std::uint64_t>(params_.iterations) * static_cast<std::uint64_t>(params_.threads);
    if (s_->mutex_count.load() != writes) P::violation("mutual_exclusion", "the mutex lost increments");
    if (s_->rw_a.load() != s_->rw_b.load()) P::violation("mutual_exclusion", "the rwlock's pair disagrees");
  }

  std::uint64_t mutex_count() const { return s_->mutex_count.load(); }
  std::uint64_t rw_writes() const { return s_->rw_a.load(); }
  std::uint64_t torn_reads() const { return torn_.load(); }

 private:
  struct State {
    SleepMutex<P> mutex;
    SleepRwLock<P> rwlock;
    RangeLock<P> range;
    typename P::template Shared<std::uint64_t> mutex_count{0};
    typename P::template Shared<std::uint64_t> rw_a{0};
    typename P::template Shared<std::uint64_t> rw_b{0};
    typename P::template Shared<std::uint64_t> range_slots[kSlots]{};
  };

  void body(int t) {
    for (int k = 0; k < params_.iterations; ++k) {
      s_->mutex.lock();
      s_->mutex_count.store(s_->mutex_count.load() + 1);
      s_->mutex.unlock();

      if ((t + k) % 2 == 0) {
        s_->rwlock.lock();
        s_->rw_a.store(s_->rw_a.load() + 1);
        s_->rw_b.store(s_->rw_b.load() + 1);
        s_->rwlock.unlock();
      } else {
        s_->rwlock.lock_shared();
        if (s_->rw_a.load() != s_->rw_b.load()) torn_.fetch_add(1);
        s_->rwlock.unlock_shared();
      }

      // Thread t's ranges: [t % kSlots, +2) clipped, writing on even iterations.
      const auto start = static_cast<std::uint64_t>((t + k) % kSlots);
      const std::uint64_t end = std::min<std::uint64_t>(start + 2, kSlots);
      Local<P, typename RangeLock<P>::Node> node;
      if (k % 2 == 0) {
        s_->range.lock_write(*node, start, end);
        for (std::uint64_t i = start; i < end; ++i) {
          s_->range_slots[i].store(s_->range_slots[i].load() + 1);
          ++expected_range_[i];  // host bookkeeping, under the same lock
        }
        s_->range.unlock_write(*node);
      } else {
        s_->range.lock_read(*node, start, end);
        for (std::uint64_t i = start; i < end; ++i) (void)s_->range_slots[i].load();
        s_->range.unlock_read(*node);
      }
    }
  }

  LockTestParams params_;
  State* s_ = nullptr;
  std::atomic<std::uint64_t> torn_{0};
  std::uint64_t expected_range_[kSlots]{};
};

std::string run_native(const LockTestParams& params, SleepLockWorkload<native::NativePlatform>& w) {
  native::NativeRunner runner;
  w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
  auto result = runner.run();
  w.check();
  native::NativeViolation v;
  if (result.violation) return result.violation->property;
  if (native::take_violation(v)) return v.property;
  (void)params;
  return "";
}

}  // namespace

TEMPLATE_TEST_CASE("sleeping locks exclude and share as they should", "[sync][sleep][dual]", native::NativePlatform,
                   sim::SimPlatform) {
  LockTestParams params{4, 20};
  if constexpr (std::is_same_v<TestType, native::NativePlatform>) {
    params.iterations = 2000;
    SleepLockWorkload<TestType> w(params);
    CHECK(run_native(params, w).empty());
    CHECK(w.mutex_count() == 4 * 2000);
    CHECK(w.torn_reads() == 0);
  } else {
    sim::FlatCostModel costs{sim::FlatCosts{}};
    sim::Engine engine(sim::MachineShape{{0, 0, 0, 0}}, costs, sim::EngineLimits{});
    sim::SimWorkloadOf<SleepLockWorkload<TestType>, LockTestParams> w(params);
    model::RandomStrategy random(5);
    for (std::uint64_t i = 0; i < 40; ++i) {
      auto r = engine.run(w, random, nullptr, i);
      INFO("execution " << i);
      REQUIRE_FALSE(r.violation);
      REQUIRE(w.workload().mutex_count() == 4 * 20);
      REQUIRE(w.workload().torn_reads() == 0);
    }
    sim::TimedStrategy timed(3);
    auto r = engine.run(w, timed, nullptr, 0);
    CHECK_FALSE(r.violation);
  }
}
