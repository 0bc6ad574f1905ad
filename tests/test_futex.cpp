// The futex hash table: sizing, layout, hashing, and wait/wake/requeue semantics,
// on the simulator (many random schedules, x86-TSO) and natively on real threads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/futex/futex_designs.hpp"
#include "core/futex/futex_table.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"
#include "tests/lambda_workload.hpp"

using namespace lockstep;
using namespace lockstep::futex;

TEST_CASE("futex table sizes follow the kernel's rules", "[futex]") {
  CHECK(table_shape(Sizing::global_256, {512, 16, 512}).buckets_per_table == 256);
  CHECK(table_shape(Sizing::per_cpu, {32, 8, 32}).buckets_per_table == 8192);
  CHECK(table_shape(Sizing::per_cpu, {24, 2, 1}).buckets_per_table == 8192);  // 6144 rounded up
  const TableShape numa = table_shape(Sizing::per_node, {512, 16, 1});
  CHECK(numa.tables == 16);
  CHECK(numa.buckets_per_table == 8192);
  CHECK(table_shape(Sizing::per_node, {1, 4, 1}).buckets_per_table == 64);            // max(4, 64)
  CHECK(table_shape(Sizing::process_private, {64, 1, 1}).buckets_per_table == 16);    // clamped up to 16
  CHECK(table_shape(Sizing::process_private, {64, 1, 10}).buckets_per_table == 64);   // 4 * 10 -> 64
  CHECK(table_shape(Sizing::process_private, {2, 1, 1000}).buckets_per_table == 16);  // min(threads, cpus) = 2
}

TEST_CASE("jhash2 and Fibonacci hashing spread keys over the buckets", "[futex]") {
  const auto kind = GENERATE(HashKind::jhash2, HashKind::fibonacci);
  CAPTURE(enum_name(kHashNames, kind));
  // 32 threads x 1024 consecutive 4-byte futexes, as futex-hash lays them out.
  std::vector<int> load(8192, 0);
  for (std::uint64_t t = 0; t < 32; ++t)
    for (std::uint64_t f = 0; f < 1024; ++f)
      load[hash_key(kind, make_key(KeyKind::private_key, 0x100000 + t * 4096 + f * 4)) & 8191]++;
  const int fullest = *std::max_element(load.begin(), load.end());
  const auto empty = std::count(load.begin(), load.end(), 0);
  CHECK(fullest <= 16);  // 4 per bucket on average
  CHECK(empty < 8192 / 10);
  CHECK(hash_key(kind, make_key(KeyKind::private_key, 64)) != hash_key(kind, make_key(KeyKind::shared_key, 64)));
}

using lockstep::testing::LambdaWorkload;

TEST_CASE("packed buckets share cachelines, aligned ones do not", "[futex]") {
  const auto lock = GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs);
  const auto layout = GENERATE(Layout::packed, Layout::aligned);
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(sim::MachineShape{{0, 0}}, costs);
  std::set<std::uint64_t> lines;
  LambdaWorkload w;
  w.on_setup = [&](sim::Engine&) {
    FutexConfig config;
    config.sizing = Sizing::global_256;
    config.layout = layout;
    config.lock = lock;
    BucketArray<sim::SimPlatform, TicketLock<sim::SimPlatform>> array(256, layout, 0, 1);
    for (std::uint32_t i = 0; i < 256; ++i) lines.insert(sim::SimPlatform::address_of(&array.bucket(i)) / 64);
  };
  sim::TimedStrategy oracle(1);
  engine.run(w, oracle, nullptr, 0);
  if (layout == Layout::aligned) {
    CHECK(lines.size() == 256);
  } else {
    CHECK(lines.size() < 256 * 2 / 3);  // 32-byte buckets: two to a line
  }
}

TEST_CASE("split buckets keep their wait list on a line apart from the lock", "[futex]") {
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(sim::MachineShape{{0, 0}}, costs);
  std::set<std::uint64_t> lines;
  LambdaWorkload w;
  w.on_setup = [&](sim::Engine&) {
    using P = sim::SimPlatform;
    BucketArray<P, McsLock<P>, true> array(256, Layout::split, 0, 1);
    for (std::uint32_t i = 0; i < 256; ++i) {
      const auto& b = array.bucket(i);
      const std::uint64_t first = P::address_of(&b.lock) / 64;
      CHECK(P::address_of(&b.waiters) / 64 == first);
      CHECK(P::address_of(&b.head) / 64 == first + 1);
      CHECK(P::address_of(&b.tail) / 64 == first + 1);
      lines.insert(first);
      lines.insert(first + 1);
    }
    // A layout that is not split refuses the split bucket type, and the other way round.
    CHECK_THROWS_AS((BucketArray<P, McsLock<P>, true>(16, Layout::aligned, 0, 1)), std::logic_error);
    CHECK_THROWS_AS((BucketArray<P, McsLock<P>>(16, Layout::split, 0, 1)), std::logic_error);
  };
  sim::TimedStrategy oracle(1);
  engine.run(w, oracle, nullptr, 0);
  CHECK(lines.size() == 512);  // two lines a bucket, none shared
}

namespace {

// Waiters sleep until a flag is set; the waker sets it and wakes them all: the shape of
// every lost-wakeup bug. A waiter that sleeps forever is a deadlock in the simulator.
struct WaitWakeParams {
  FutexConfig config;
  int waiters = 2;
  int grow_to = 0;  // > 0: a thread grows the private table to this many threads meanwhile
};

template <Platform P>
class WaitWake {
 public:
  static constexpr WorkloadHooks kHooks{};
  explicit WaitWake(const WaitWakeParams& p) : p_(p) {}
  ~WaitWake() {
    if (flag_ != nullptr) destroy_on<P>(flag_);
  }
  WaitWake(const WaitWake&) = delete;
  WaitWake& operator=(const WaitWake&) = delete;

  void setup(const SpawnFn& spawn) {
    table_.emplace(p_.config, FutexMachine{2, 1, p_.waiters + 1});
    flag_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
    P::label(flag_, sizeof *flag_, "flag");
    for (int i = 0; i < p_.waiters; ++i)
      spawn("waiter" + std::to_string(i), i % 2, [this] {
        while (flag_->load(std::memory_order_acquire) == 0) table_->wait(*flag_, 0);
        done_.fetch_add(1);
      });
    spawn("waker", 1, [this] {
      flag_->store(1, std::memory_order_release);  // a plain mov on x86: it can wait in the store buffer
      table_->wake(*flag_, INT_MAX);
    });
    if (p_.grow_to > 0) spawn("grower", 0, [this] { table_->grow(p_.grow_to); });
  }
  void check() const {}
  int done() const { return done_.load(); }
  std::int64_t references_held() { return table_->references_held(); }
  void rescue() { table_->wake(*flag_, INT_MAX); }

 private:
  WaitWakeParams p_;
  std::optional<FutexTable<P>> table_;
  typename P::template Atomic<std::uint32_t>* flag_ = nullptr;
  std::atomic<int> done_{0};
};

// Runs WaitWake under `executions` random schedules; returns how many lost a wakeup.
int lost_wakeups_in_sim(const WaitWakeParams& p, std::uint32_t store_buffer_entries, int executions) {
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(sim::MachineShape{{0, 0}}, costs, sim::EngineLimits{200'000, store_buffer_entries});
  sim::SimWorkloadOf<WaitWake<sim::SimPlatform>, WaitWakeParams> w(p);
  model::RandomStrategy random(42);
  int lost = 0;
  for (int i = 0; i < executions; ++i) {
    const sim::ExecutionResult r = engine.run(w, random, nullptr, static_cast<std::uint64_t>(i));
    if (r.violation) {
      if (std::getenv("LOCKSTEP_DEBUG_FUTEX") != nullptr) WARN(r.violation->property << ": " << r.violation->message);
      REQUIRE(r.violation->property == "deadlock");
      ++lost;
    } else {
      REQUIRE(w.workload().done() == p.waiters);
      REQUIRE(w.workload().references_held() == 0);  // every reference taken was dropped
    }
  }
  return lost;
}

}  // namespace

TEST_CASE("no wake is lost with the correct variants, under x86-TSO and random schedules", "[futex][sim]") {
  const auto lock = GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs);
  const auto fastpath = GENERATE(WakeFastpath::none, WakeFastpath::counter);
  const auto sizing = GENERATE(Sizing::global_256, Sizing::per_node, Sizing::process_private);
  const auto layout = GENERATE(Layout::packed, Layout::aligned, Layout::split);
  FutexConfig config{sizing, Placement::node0, layout, lock, HashKind::jhash2, KeyKind::private_key, fastpath};
  CAPTURE(describe(config));
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 0}, 8, 150) == 0);
}

TEST_CASE("6.16's and 6.17's tables lose no wake, and drop every reference they take", "[futex][sim]") {
  const auto name = GENERATE(std::string("linux-6.16"), std::string("linux-6.17"), std::string("linux-6.17-split"));
  FutexConfig config = named_design(name)->config;
  CAPTURE(describe(config));
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 0}, 8, 150) == 0);
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 64}, 8, 150) == 0);  // the table grows meanwhile
  config.private_buckets = 16;                                             // fixed: it does not grow
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 64}, 8, 150) == 0);
}

TEST_CASE("b0c29f79's empty-list fast path is sound with a ticket lock", "[futex][sim]") {
  FutexConfig config;
  config.lock = SpinlockKind::ticket;
  config.fastpath = WakeFastpath::empty_list;
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 0}, 8, 400) == 0);
}

TEST_CASE("no wake is lost while the private table grows", "[futex][sim]") {
  FutexConfig config;
  config.sizing = Sizing::process_private;
  config.lock = GENERATE(SpinlockKind::ticket, SpinlockKind::mcs);
  CAPTURE(describe(config));
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 64}, 8, 300) == 0);
}

TEST_CASE("without barrier (B) the waker loses a wakeup under x86-TSO, not under SC", "[futex][sim]") {
  FutexConfig config;
  config.fastpath = WakeFastpath::counter_missing_b;
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 1, 0}, 8, 2000) > 0);
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 1, 0}, 0, 500) == 0);
}

TEST_CASE("without barrier (A) the waiter's locked increment still orders it under x86-TSO", "[futex][sim]") {
  // docs/sources.md section 1: on x86 `lock inc` drains the store buffer, so (A) is redundant there.
  FutexConfig config;
  config.fastpath = WakeFastpath::counter_missing_a;
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 1, 0}, 8, 2000) == 0);
  CHECK(lost_wakeups_in_sim(WaitWakeParams{config, 2, 0}, 8, 1000) == 0);
}

TEST_CASE("natively no wake is lost", "[futex][native]") {
  const auto lock = GENERATE(SpinlockKind::ticket, SpinlockKind::ttas, SpinlockKind::mcs);
  const auto sizing = GENERATE(Sizing::per_cpu, Sizing::process_private);
  FutexConfig config;
  config.lock = lock;
  config.sizing = sizing;
  CAPTURE(describe(config));
  for (int round = 0; round < 100; ++round) {
    WaitWake<native::NativePlatform> w(WaitWakeParams{config, 3, sizing == Sizing::process_private ? 64 : 0});
    native::NativeRunner runner;
    w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
    std::thread run([&runner] { runner.run(); });
    // A lost wakeup leaves waiters asleep for good: give them time, then wake them to end the test.
    bool lost = false;
    for (int waited_ms = 0; w.done() < 3; ++waited_ms) {
      if (waited_ms == 5000) {
        lost = true;
        w.rescue();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    run.join();
    REQUIRE_FALSE(lost);
  }
}

namespace {

// Sleepers with the given priorities queue on word A one after the other; a controller
// then either wakes them one at a time (recording the order they come back in) or requeues
// them onto B and wakes them there.
struct OrderParams {
  FutexConfig config;
  std::vector<std::uint32_t> priorities;
  bool requeue = false;
};

template <Platform P>
class WakeOrder {
 public:
  static constexpr WorkloadHooks kHooks{};
  using Word = typename P::template Atomic<std::uint32_t>;
  explicit WakeOrder(const OrderParams& p) : p_(p) {}
  ~WakeOrder() {
    if (words_ != nullptr) destroy_on<P>(words_);
  }
  WakeOrder(const WakeOrder&) = delete;
  WakeOrder& operator=(const WakeOrder&) = delete;

  void setup(const SpawnFn& spawn) {
    const int n = static_cast<int>(p_.priorities.size());
    table_.emplace(p_.config, FutexMachine{2, 1, n + 1});
    words_ = make_on<P, Words>(0, kCacheLineBytes);
    for (int i = 0; i < n; ++i)
      spawn("sleeper" + std::to_string(i), i % 2, [this, i] {
        while (words_->turn.load(std::memory_order_acquire) != static_cast<std::uint32_t>(i)) P::cpu_relax();
        while (table_->wait(words_->a, 0, p_.priorities[static_cast<std::size_t>(i)]) != FutexError::ok) {
        }
        {
          const std::lock_guard<std::mutex> hold(order_mutex_);  // natively two wakees can race here
          order_.push_back(i);
        }
        words_->back.fetch_add(1);
      });
    spawn("controller", 1, [this, n] { control(n); });
  }
  void check() const {}
  const std::vector<int>& order() const { return order_; }
  const std::vector<int>& counts() const { return counts_; }

 private:
  struct Words {
    Word a{0};
    Word b{0};
    Word turn{0};
    Word back{0};
  };

  void control(int n) {
    for (int i = 0; i < n; ++i) {  // queue them in index order
      words_->turn.store(static_cast<std::uint32_t>(i), std::memory_order_release);
      while (table_->waiters_on(words_->a) != i + 1) P::cpu_relax();
    }
    if (p_.requeue) {
      const RequeueResult r = table_->requeue(words_->a, words_->b, 1, n, 0U);
      counts_ = {r.woken, r.requeued, table_->waiters_on(words_->a), table_->waiters_on(words_->b)};
      while (words_->back.load() != 1) P::cpu_relax();
      counts_.push_back(table_->wake(words_->b, n).woken);
      return;
    }
    for (int i = 0; i < n; ++i) {
      counts_.push_back(table_->wake(words_->a, 1).woken);
      while (words_->back.load(std::memory_order_acquire) != static_cast<std::uint32_t>(i + 1)) P::cpu_relax();
    }
  }

  OrderParams p_;
  std::optional<FutexTable<P>> table_;
  Words* words_ = nullptr;
  std::mutex order_mutex_;
  std::vector<int> order_;
  std::vector<int> counts_;
};

template <class P>
struct OrderRun;

// The wake-order workload explored at random, 40 executions, on two CPUs with flat costs.
struct SimOrderExploration {
  static constexpr std::uint64_t kExecutions = 40;
  explicit SimOrderExploration(const OrderParams& p) : w(p) {}
  sim::ExecutionResult run(std::uint64_t i, sim::TraceRecorder* trace = nullptr) {
    return engine.run(w, random, trace, i);
  }

  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine{sim::MachineShape{{0, 0}}, costs, sim::EngineLimits{2'000'000, 8}};
  sim::SimWorkloadOf<WakeOrder<sim::SimPlatform>, OrderParams> w;
  model::RandomStrategy random{5};
};

template <>
struct OrderRun<sim::SimPlatform> {
  template <class Check>
  static void run(const OrderParams& p, Check check) {
    SimOrderExploration x(p);
    for (std::uint64_t i = 0; i < SimOrderExploration::kExecutions; ++i) {
      const sim::ExecutionResult r = x.run(i);
      REQUIRE_FALSE(r.violation.has_value());
      check(x.w.workload());
    }
  }
};

template <>
struct OrderRun<native::NativePlatform> {
  template <class Check>
  static void run(const OrderParams& p, Check check) {
    for (int round = 0; round < 5; ++round) {
      WakeOrder<native::NativePlatform> w(p);
      native::NativeRunner runner;
      w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
      runner.run();
      check(w);
    }
  }
};

}  // namespace

TEMPLATE_TEST_CASE("wake order: most urgent priority first, FIFO within a priority", "[futex][dual]", sim::SimPlatform,
                   native::NativePlatform) {
  FutexConfig config;
  config.lock = GENERATE(SpinlockKind::ticket, SpinlockKind::mcs);
  OrderParams p{config, {120, 10, 120, 50, 10}, false};
  OrderRun<TestType>::run(p, [](const auto& w) {
    REQUIRE(w.order() == std::vector<int>{1, 4, 3, 0, 2});
    REQUIRE(w.counts() == std::vector<int>{1, 1, 1, 1, 1});
  });
}

// The controller's loop `while (waiters_on(a) != i + 1) cpu_relax()` takes and releases a
// bucket lock in every iteration; with MCS, the lock's node is a local of a function that
// has returned by the pause. Whether such an iteration blocks once depended on the stale
// host bytes where that node had been, which the engine's own frames (and tracing) overwrite:
// a layout change made an untraced execution report a deadlock its traced re-run did not.
TEST_CASE("exploring: a traced execution takes the steps of the untraced one, spin loops over returned locals included",
          "[futex][engine]") {
  FutexConfig config;
  config.lock = GENERATE(SpinlockKind::ticket, SpinlockKind::mcs);
  SimOrderExploration x(OrderParams{config, {120, 10, 120, 50, 10}, false});
  for (std::uint64_t i = 0; i < SimOrderExploration::kExecutions; ++i) {
    const sim::ExecutionResult untraced = x.run(i);
    sim::TraceRecorder trace;
    const sim::ExecutionResult traced = x.run(i, &trace);
    INFO("execution " << i);
    REQUIRE(untraced.violation.has_value() == traced.violation.has_value());
    REQUIRE(untraced.steps == traced.steps);
    REQUIRE(untraced.schedule == traced.schedule);
    REQUIRE_FALSE(untraced.violation.has_value());
  }
}

TEMPLATE_TEST_CASE("requeue wakes nr_wake and moves the rest to the other word", "[futex][dual]", sim::SimPlatform,
                   native::NativePlatform) {
  FutexConfig config;
  config.sizing = GENERATE(Sizing::global_256, Sizing::per_node);
  OrderParams p{config, {120, 120, 120}, true};
  OrderRun<TestType>::run(p, [](const auto& w) {
    // woken 1, requeued 2, none left on A, 2 on B, then the wake on B brings back 2.
    REQUIRE(w.counts() == std::vector<int>{1, 2, 0, 2, 2});
    REQUIRE(w.order().size() == 3);
    REQUIRE(w.order().front() == 0);  // the first in line is the one woken; the other two come back together
  });
}
