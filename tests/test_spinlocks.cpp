// The dual-platform counter test: written once as a template over the platform,
// run natively on real threads and in simulation under many schedules. Then what is
// particular to the queued (MCS) lock: its FIFO hand-over and its use from scenario files.
#include <catch2/catch.hpp>

#include <fstream>

#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "core/sync/mcs_lock.hpp"
#include "core/sync/spin_guard.hpp"
#include "core/workloads/lock_counter.hpp"
#include "core/workloads/workload.hpp"
#include "driver/runner.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;

namespace {

// Runs LockCounter<P> once on platform P and returns the final count and any violation.
template <class P>
struct CounterRun;

template <>
struct CounterRun<native::NativePlatform> {
  static std::uint64_t run(const LockCounterParams& params, std::string& violation) {
    LockCounter<native::NativePlatform> w(params);
    native::NativeRunner runner;
    w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
    auto result = runner.run();
    w.check();
    native::NativeViolation v;
    if (result.violation) violation = result.violation->property;
    if (native::take_violation(v)) violation = v.property;
    return w.counter();
  }
};

template <>
struct CounterRun<sim::SimPlatform> {
  static std::uint64_t run(const LockCounterParams& params, std::string& violation, sim::Scheduler& oracle,
                           std::uint64_t index, sim::EngineLimits limits = {}) {
    sim::FlatCostModel costs{sim::FlatCosts{}};
    sim::Engine engine(sim::MachineShape{{0, 0, 0, 0}}, costs, limits);
    sim::SimWorkloadOf<LockCounter<sim::SimPlatform>, LockCounterParams> w(params);
    auto result = engine.run(w, oracle, nullptr, index);
    if (result.violation) violation = result.violation->property;
    return w.workload().counter();
  }
};

}  // namespace

TEMPLATE_TEST_CASE("counter under a spinlock is exact", "[sync][dual]", native::NativePlatform, sim::SimPlatform) {
  const auto kind =
      GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs, SpinlockKind::tas, SpinlockKind::clh);
  CAPTURE(name_of(kind));
  LockCounterParams params{kind, 4, 200, 4};
  std::string violation;
  if constexpr (std::is_same_v<TestType, native::NativePlatform>) {
    // One thread per host CPU: a spinlock on an oversubscribed host spins away whole time
    // slices whenever the holder is preempted, which makes a test slow, not more thorough.
    params.threads = std::max(2, static_cast<int>(native::allowed_cpus().size()));
    params.cpus = params.threads;
    params.iterations = 10000;
    CHECK(CounterRun<TestType>::run(params, violation) == static_cast<std::uint64_t>(params.threads) * 10000);
    CHECK(violation.empty());
  } else {
    model::RandomStrategy random(7);
    for (std::uint64_t i = 0; i < 50; ++i) {
      violation.clear();
      REQUIRE(CounterRun<TestType>::run(params, violation, random, i) == 4 * 200);
      REQUIRE(violation.empty());
    }
    sim::TimedStrategy timed(7);
    CHECK(CounterRun<TestType>::run(params, violation, timed, 0) == 4 * 200);
    CHECK(violation.empty());
  }
}

// The TAS and CLH locks against the exhaustive search: every interleaving class under SC and
// under x86-TSO, and the count exact in all of them. CLH gets three threads too, so that a
// node recycled by one thread is queued behind by another.
TEST_CASE("the TAS and CLH locks keep the count exact in every interleaving", "[sync]") {
  struct Case {
    const char* lock;
    int threads, iterations;
  };
  for (const Case c : {Case{"tas", 2, 2}, Case{"clh", 2, 3}, Case{"clh", 3, 1}})
    for (const char* model : {"sc", "tso"}) {
      CAPTURE(c.lock, c.threads, model);
      const std::string text = fmt::format(R"(name: {0}
machine: {{preset: flat, cpus: 3}}
memory_model: {1}
design: {{spinlock: {0}}}
workload: {{kind: lock-counter, threads: {2}, iterations: {3}}}
strategy: {{kind: dfs}}
expect: pass
)",
                                           c.lock, model, c.threads, c.iterations);
      const std::filesystem::path dir =
          lockstep::testing::scratch_dir() / fmt::format("{}-{}-{}", c.lock, c.threads, model);
      std::filesystem::create_directories(dir);
      const std::string path = (dir / "lock.yaml").string();
      std::ofstream(path) << text;
      driver::RunOptions options;
      options.out_dir = (dir / "out").string();
      const report::RowReport r = driver::run_scenario_row(scenario::load_scenario_file(path), 0, options);
      CHECK(r.result == "pass");
      CHECK(r.exhaustive);
      CHECK(r.executions > 10);
    }
}

TEST_CASE("every spinlock is exact under x86-TSO", "[sync]") {
  // Store buffers let a thread's own loads pass its earlier stores; a lock that relied on
  // that order without a locked instruction or a fence would lose increments here.
  const auto kind =
      GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs, SpinlockKind::tas, SpinlockKind::clh);
  CAPTURE(name_of(kind));
  sim::EngineLimits tso;
  tso.store_buffer_entries = 4;
  model::RandomStrategy random(11);
  for (std::uint64_t i = 0; i < 50; ++i) {
    std::string violation;
    REQUIRE(CounterRun<sim::SimPlatform>::run(LockCounterParams{kind, 3, 20, 4}, violation, random, i, tso) == 3 * 20);
    REQUIRE(violation.empty());
  }
}

TEMPLATE_TEST_CASE("a SpinGuard holds every lock kind for its scope", "[sync]", TicketLock<native::NativePlatform>,
                   TtasLock<native::NativePlatform>, McsLock<native::NativePlatform>) {
  TestType lock;
  typename TestType::Node other;
  {
    const SpinGuard<TestType> guard(lock);
    CHECK(lock.is_locked());
    CHECK_FALSE(lock.try_lock(other));
  }
  CHECK_FALSE(lock.is_locked());
  REQUIRE(lock.try_lock(other));
  lock.unlock(other);
  CHECK_FALSE(lock.is_locked());
}

TEST_CASE("CLH: a releaser enqueues its predecessor's node next time", "[sync]") {
  ClhLock<native::NativePlatform> lock;
  ClhLock<native::NativePlatform>::Node a;
  ClhLock<native::NativePlatform>::Node b;
  lock.lock(a);
  CHECK(lock.is_locked());
  CHECK_FALSE(lock.try_lock(b));
  lock.unlock(a);
  CHECK_FALSE(lock.is_locked());
  // a queued itself behind the lock's first node and now holds that one for next time; b
  // queues itself behind a's own node, which a left free.
  const auto own = [](const auto& node) { return native::NativePlatform::address_of(&node) | 1; };
  CHECK(a.mine.load() != 0);
  CHECK(a.mine.load() != own(a));
  REQUIRE(lock.try_lock(b));
  lock.unlock(b);
  CHECK(b.mine.load() == own(a));
  lock.lock(a);  // a's recycled node
  CHECK(lock.is_locked());
  lock.unlock(a);
  CHECK_FALSE(lock.is_locked());
}

TEST_CASE("AnySpinlock takes a node for every kind", "[sync]") {
  const auto kind =
      GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs, SpinlockKind::tas, SpinlockKind::clh);
  CAPTURE(name_of(kind));
  CHECK(spinlock_from_name(name_of(kind)) == kind);
  AnySpinlock<native::NativePlatform> lock(kind);
  AnySpinlock<native::NativePlatform>::Node a;
  AnySpinlock<native::NativePlatform>::Node b;
  lock.lock(a);
  CHECK(lock.is_locked());
  CHECK_FALSE(lock.try_lock(b));
  lock.unlock(a);
  CHECK_FALSE(lock.is_locked());
}

namespace {

// What the FIFO test observes: the threads in the order they joined the queue and in the
// order they acquired the lock, for the current execution.
struct QueueLog {
  static inline std::vector<sim::ThreadId> joins;
  static inline std::vector<sim::ThreadId> acquisitions;
  static inline int queued_joins = 0;  // joins that found the lock held or awaited
  static void clear() {
    joins.clear();
    acquisitions.clear();
  }
};

// The simulator's platform, except that an exchange records the thread that made it. An MCS
// lock exchanges only its tail, and only to join the queue, so the record is the queue order.
// Fibers switch only inside platform calls, so no other thread runs between the exchange
// and its record.
struct JoinRecordingPlatform : sim::SimPlatform {
  template <class T>
  class Atomic : public sim::SimPlatform::Atomic<T> {
   public:
    using sim::SimPlatform::Atomic<T>::Atomic;
    T exchange(T value, std::memory_order order = std::memory_order_seq_cst) {
      const T previous = sim::SimPlatform::Atomic<T>::exchange(value, order);
      QueueLog::joins.push_back(sim::SimPlatform::self());
      if (previous != 0) ++QueueLog::queued_joins;
      return previous;
    }
  };
};
static_assert(Platform<JoinRecordingPlatform>);

// Threads take one MCS lock a few times each and log their acquisitions inside it.
template <Platform P>
class McsQueueWorkload {
 public:
  static constexpr WorkloadHooks kHooks{};
  explicit McsQueueWorkload(int threads) : threads_(threads) {}
  ~McsQueueWorkload() {
    if (lock_ != nullptr) destroy_on<P>(lock_);
  }
  McsQueueWorkload(const McsQueueWorkload&) = delete;
  McsQueueWorkload& operator=(const McsQueueWorkload&) = delete;

  void setup(const SpawnFn& spawn) {
    QueueLog::clear();
    lock_ = make_on<P, McsLock<P>>(0, kCacheLineBytes);
    for (int i = 0; i < threads_; ++i) spawn(fmt::format("t{}", i), i, [this] { body(); });
  }
  void check() const {}

 private:
  void body() {
    for (int k = 0; k < kRounds; ++k) {
      const SpinGuard<McsLock<P>> guard(*lock_);
      QueueLog::acquisitions.push_back(P::self());
    }
  }

  static constexpr int kRounds = 3;
  int threads_;
  McsLock<P>* lock_ = nullptr;
};

}  // namespace

TEST_CASE("an MCS lock is acquired in the order its waiters queued", "[sync][mcs]") {
  constexpr int kThreads = 4;
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(sim::MachineShape{{0, 0, 0, 0}}, costs);
  sim::SimWorkloadOf<McsQueueWorkload<JoinRecordingPlatform>, int> workload(kThreads);
  model::RandomStrategy random(3);
  QueueLog::queued_joins = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const sim::ExecutionResult result = engine.run(workload, random, nullptr, i);
    REQUIRE_FALSE(result.violation);
    REQUIRE(QueueLog::acquisitions.size() == static_cast<std::size_t>(kThreads) * 3);
    REQUIRE(QueueLog::acquisitions == QueueLog::joins);
  }
  // The order is only worth checking if threads did wait in the queue.
  CHECK(QueueLog::queued_joins > 100);
}

TEST_CASE("scenario files run thread programs under an MCS lock", "[sync][mcs][scenario]") {
  const scenario::ScenarioFile file =
      scenario::load_scenario_file(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/basics/counter-program-lock.yaml");
  const auto mcs = std::find_if(file.rows.begin(), file.rows.end(),
                                [](const scenario::Scenario& row) { return row.design.spinlock == SpinlockKind::mcs; });
  REQUIRE(mcs != file.rows.end());
  scenario::ScenarioFile one = file;
  one.rows = {*mcs};
  driver::RunOptions options;
  options.executions = 300;
  options.out_dir = (lockstep::testing::scratch_dir() / "mcs").string();
  const report::ScenarioReport report = driver::run_scenario_file(one, options);
  INFO(report.rows.front().message);
  CHECK(report.result() == "pass");
  CHECK(report.matched());
}
