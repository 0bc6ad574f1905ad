// User-space synchronization on futexes (core/usync/): Drepper's mutexes and the
// sequence-number condvar, each run natively on real threads and in the simulator under
// many random schedules, with and without x86-TSO store buffers. A thread left asleep is a
// deadlock in the simulator and a rescued thread natively; either fails the test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "core/futex/futex_table.hpp"
#include "core/usync/condvar.hpp"
#include "core/usync/drepper_mutex.hpp"
#include "core/usync/forgetful_mutex.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"
#include "model/random_strategy.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "sim/exec/workload_adapter.hpp"
#include "sim/timed_strategy.hpp"

using namespace lockstep;
using namespace lockstep::usync;
using Native = native::NativePlatform;
using Sim = sim::SimPlatform;

namespace {

// The kernel with a tally of the calls made into it, to tell which paths stay in user space.
// The tally is the test's observation, not shared state of the protocol, so it lives on the
// host (natively it is updated from several threads, hence atomic).
template <Platform P>
class CountingKernel {
 public:
  explicit CountingKernel(futex::FutexTable<P>& table) : table_(table) {}
  futex::FutexError wait(FutexWord<P>& word, std::uint32_t expected) {
    waits.fetch_add(1);
    return table_.wait(word, expected);
  }
  futex::WakeResult wake(FutexWord<P>& word, int count) {
    wakes.fetch_add(1);
    return table_.wake(word, count);
  }
  futex::RequeueResult requeue(FutexWord<P>& from, FutexWord<P>& to, int nr_wake, int nr_requeue,
                               std::optional<std::uint32_t> expected) {
    requeues.fetch_add(1);
    return table_.requeue(from, to, nr_wake, nr_requeue, expected);
  }
  int calls() const { return waits.load() + wakes.load() + requeues.load(); }

  std::atomic<int> waits{0};
  std::atomic<int> wakes{0};
  std::atomic<int> requeues{0};

 private:
  futex::FutexTable<P>& table_;
};
static_assert(FutexKernel<CountingKernel<Native>, Native>);
static_assert(FutexKernel<CountingKernel<Sim>, Sim>);

// The futex table a workload runs on, and the wrapper around it when the mutex asks for one.
template <class M>
class KernelFor {
 public:
  using P = typename M::Platform;
  using K = typename M::Kernel;
  K& make(int cpus, int threads) {
    table_.emplace(futex::FutexConfig{}, futex::FutexMachine{cpus, 1, threads});
    if constexpr (std::is_same_v<K, futex::FutexTable<P>>) {
      return *table_;
    } else {
      wrapper_.emplace(*table_);
      return *wrapper_;
    }
  }
  K& get() {
    if constexpr (std::is_same_v<K, futex::FutexTable<P>>) {
      return *table_;
    } else {
      return *wrapper_;
    }
  }
  futex::FutexTable<P>& table() { return *table_; }

 private:
  std::optional<futex::FutexTable<P>> table_;
  std::optional<K> wrapper_;
};

// Owns one object of platform memory for a workload.
template <Platform P, class T>
class PlatformBox {
 public:
  PlatformBox() = default;
  ~PlatformBox() {
    if (object_ != nullptr) destroy_on<P>(object_);
  }
  PlatformBox(const PlatformBox&) = delete;
  PlatformBox& operator=(const PlatformBox&) = delete;
  template <class... Args>
  T& make(Args&&... args) {
    object_ = make_on<P, T>(0, kCacheLineBytes, std::forward<Args>(args)...);
    return *object_;
  }
  T* operator->() const { return object_; }
  T& operator*() const { return *object_; }

 private:
  T* object_ = nullptr;
};

// What every workload here owns: its parameters, its kernel, its state in platform memory
// (built on that kernel), and a count of the threads that finished, for the native rescue.
template <class M, class Params, class State>
class UsyncWorkload {
 public:
  static constexpr WorkloadHooks kHooks{};
  using P = typename M::Platform;
  explicit UsyncWorkload(const Params& p) : p_(p) {}
  int done() const { return done_.load(); }
  typename M::Kernel& kernel() { return kernel_.get(); }

 protected:
  template <class... Args>
  State& make_state(int cpus, int threads, Args&&... args) {
    return state_.make(kernel_.make(cpus, threads), std::forward<Args>(args)...);
  }

  Params p_;
  KernelFor<M> kernel_;
  PlatformBox<P, State> state_;
  std::atomic<int> done_{0};
};

// A mutex and the counter it guards.
template <class M>
struct CounterState {
  explicit CounterState(typename M::Kernel& k) : mutex(k) {}
  M mutex;
  alignas(kCacheLineBytes) typename M::Platform::template Shared<std::uint64_t> counter{0};
};

// --- (a), (b): a counter incremented under each mutex --------------------------------------

struct CounterParams {
  int threads = 3;
  int iterations = 5;
  int cpus = 4;
  int hold = 0;  // extra reads of the counter inside the lock, to widen the window for contenders
};

template <class M>
class MutexCounter : public UsyncWorkload<M, CounterParams, CounterState<M>> {
  using Base = UsyncWorkload<M, CounterParams, CounterState<M>>;
  using Base::done_;
  using Base::kernel_;
  using Base::p_;
  using Base::state_;

 public:
  using P = typename M::Platform;
  using Base::Base;

  void setup(const SpawnFn& spawn) {
    this->make_state(p_.cpus, p_.threads);
    P::label(&state_->mutex, sizeof state_->mutex, "mutex");
    for (int i = 0; i < p_.threads; ++i) spawn(fmt::format("t{}", i), i % p_.cpus, [this] { body(); });
  }
  void check() const {
    const auto expected = static_cast<std::uint64_t>(p_.threads) * static_cast<std::uint64_t>(p_.iterations);
    if (state_->counter.load() != expected)
      P::violation("mutual_exclusion", fmt::format("counter is {}, expected {}", state_->counter.load(), expected));
    if (state_->mutex.word().load(std::memory_order_relaxed) != kUnlocked)
      P::violation("mutex_state", "the mutex word is not 0 after the last unlock");
  }
  void rescue() { kernel_.table().wake(state_->mutex.word(), INT_MAX); }

 private:
  void body() {
    for (int k = 0; k < p_.iterations; ++k) {
      // Odd rounds try first, so try_lock is checked for exclusion too.
      const bool held = k % 2 == 1 && state_->mutex.try_lock();
      if (!held) state_->mutex.lock();
      for (int h = 0; h < p_.hold; ++h) static_cast<void>(state_->counter.load());
      state_->counter.store(state_->counter.load() + 1);
      state_->mutex.unlock();
    }
    done_.fetch_add(1);
  }
};

// A simulated machine of `cpus` CPUs on one node, everything else as the engine defaults it.
sim::MachineShape cpus_on_one_node(int cpus) {
  sim::MachineShape shape;
  shape.node_of_cpu.assign(static_cast<std::size_t>(cpus), 0);
  return shape;
}

// How a batch of random executions ended.
struct SimTally {
  int passed = 0;
  int deadlocks = 0;
  std::string other;  // the first violation that is not a deadlock
};

// Runs workload W under `executions` random schedules (seeded), with `store_buffers` entries
// of x86-TSO store buffer per CPU (0: sequential consistency).
template <class W, class Params>
SimTally run_random(const Params& params, std::uint32_t store_buffers, int executions, std::uint64_t seed,
                    const std::function<void(W&)>& after_each = {}) {
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(cpus_on_one_node(4), costs, sim::EngineLimits{200'000, store_buffers});
  sim::SimWorkloadOf<W, Params> w(params);
  model::RandomStrategy random(seed);
  SimTally tally;
  for (int i = 0; i < executions; ++i) {
    const sim::ExecutionResult r = engine.run(w, random, nullptr, static_cast<std::uint64_t>(i));
    if (after_each) after_each(w.workload());
    if (!r.violation) {
      ++tally.passed;
    } else if (r.violation->property == "deadlock") {
      ++tally.deadlocks;
    } else if (tally.other.empty()) {
      tally.other = fmt::format("execution {}: {}: {}", i, r.violation->property, r.violation->message);
    }
  }
  return tally;
}

// Runs a workload once on real threads. A thread still asleep after `patience` is woken by
// the workload's rescue(), which ends the test run but counts as a lost wakeup.
template <class W>
bool run_native_lost_wakeup(W& w, int threads, std::string& violation,
                            std::chrono::milliseconds patience = std::chrono::seconds(10)) {
  native::NativeRunner runner;
  w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
  native::NativeRunResult result;
  std::thread run([&] { result = runner.run(); });
  bool lost = false;
  const auto start = std::chrono::steady_clock::now();
  while (w.done() < threads) {
    if (std::chrono::steady_clock::now() - start > patience) {
      lost = true;
      w.rescue();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  run.join();
  w.check();
  native::NativeViolation v;
  if (result.violation) violation = result.violation->property + ": " + result.violation->message;
  if (native::take_violation(v)) violation = v.property + ": " + v.message;
  return lost;
}

// Reads inside the critical section for the contention tests: long enough that a thread
// arriving meanwhile goes through the whole futex_wait path before the holder unlocks.
inline constexpr int kHoldReads = 12;

int host_threads() { return std::max(2, static_cast<int>(native::allowed_cpus().size())); }

}  // namespace

TEMPLATE_TEST_CASE("each futex mutex keeps a counter exact natively", "[usync][native]", SimpleMutex<Native>,
                   Mutex2<Native>, Mutex3<Native>) {
  // Sleeping mutexes do not mind an oversubscribed host, so use twice as many threads as CPUs.
  const CounterParams params{2 * host_threads(), 5000, host_threads()};
  MutexCounter<TestType> w(params);
  std::string violation;
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(run_native_lost_wakeup(w, params.threads, violation));
  CHECK(violation.empty());
  INFO(violation);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  UNSCOPED_INFO(fmt::format("{} threads x {} in {:.1f} ms", params.threads, params.iterations, elapsed_ms));
}

namespace {

// Runs the counter under random schedules and returns how they ended, and how many times in
// all a thread went to sleep on the mutex (the path that can lose a wakeup).
template <class M>
std::pair<SimTally, int> counter_in_sim(const CounterParams& params, std::uint32_t store_buffers, int executions,
                                        std::uint64_t seed) {
  int sleeps = 0;
  const SimTally t = run_random<MutexCounter<M>>(params, store_buffers, executions, seed,
                                                 [&](MutexCounter<M>& w) { sleeps += w.kernel().waits.load(); });
  return {t, sleeps};
}

}  // namespace

TEMPLATE_TEST_CASE("each futex mutex keeps a counter exact under random schedules", "[usync][sim]",
                   (SimpleMutex<Sim, CountingKernel<Sim>>), (Mutex2<Sim, CountingKernel<Sim>>),
                   (Mutex3<Sim, CountingKernel<Sim>>)) {
  const std::uint32_t store_buffers = GENERATE(0U, 8U);
  CAPTURE(store_buffers);
  // Every violation counts here, a deadlock included: none of these may leave a sleeper.
  const auto [t, sleeps] = counter_in_sim<TestType>(CounterParams{3, 5, 4, 0}, store_buffers, 100, 17);
  INFO(t.other);
  CHECK(t.passed == 100);
  CHECK(t.deadlocks == 0);
  CHECK(sleeps > 0);  // the futex paths did run
}

TEMPLATE_TEST_CASE("no futex mutex leaves a sleeper behind when many contend", "[usync][sim]",
                   (SimpleMutex<Sim, CountingKernel<Sim>>), (Mutex2<Sim, CountingKernel<Sim>>),
                   (Mutex3<Sim, CountingKernel<Sim>>)) {
  const std::uint32_t store_buffers = GENERATE(0U, 8U);
  CAPTURE(store_buffers);
  // Five threads on two CPUs with a long critical section: most acquisitions sleep first.
  const auto [t, sleeps] = counter_in_sim<TestType>(CounterParams{5, 3, 2, kHoldReads}, store_buffers, 150, 23);
  INFO(t.other);
  CHECK(t.passed == 150);
  CHECK(sleeps > 150);
}

TEST_CASE("the random schedules find the sleeper a forgetful mutex leaves behind", "[usync][sim]") {
  // The control for the tests above: a mutex that relocks in state 1 after sleeping must be
  // caught leaving a thread asleep, or the schedules are too tame to prove anything.
  const auto [t, sleeps] =
      counter_in_sim<ForgetfulMutex<Sim, CountingKernel<Sim>>>(CounterParams{5, 3, 2, kHoldReads}, 8, 150, 23);
  INFO(t.other);
  CHECK(t.other.empty());
  CHECK(t.deadlocks > 0);
}

// --- (d): which paths call the kernel ------------------------------------------------------

namespace {

struct ProbeParams {
  int rounds = 10;
};

// One thread locks and unlocks an uncontended mutex (half the time with try_lock).
template <class M>
class UncontendedProbe : public UsyncWorkload<M, ProbeParams, CounterState<M>> {
  using Base = UsyncWorkload<M, ProbeParams, CounterState<M>>;

 public:
  using P = typename M::Platform;
  using Base::Base;

  void setup(const SpawnFn& spawn) {
    CounterState<M>& s = this->make_state(1, 1);
    spawn("solo", 0, [this, &s] {
      for (int k = 0; k < this->p_.rounds; ++k) {
        if (k % 2 == 0) {
          s.mutex.lock();
        } else if (!s.mutex.try_lock()) {
          P::violation("try_lock", "try_lock failed on a free mutex");
        }
        s.mutex.unlock();
      }
      this->done_.fetch_add(1);
    });
  }
  void check() const {}
  void rescue() {}
};

struct KernelCalls {
  int waits = 0;
  int wakes = 0;
  int requeues = 0;
  int total() const { return waits + wakes + requeues; }
};

template <class M>
KernelCalls calls_of(UncontendedProbe<M>& w) {
  CountingKernel<typename M::Platform>& k = w.kernel();
  return KernelCalls{k.waits.load(), k.wakes.load(), k.requeues.load()};
}

// One execution in the simulator, under x86-TSO; the engine outlives the workload's memory.
template <class M>
KernelCalls probe_in_sim(int rounds) {
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine(cpus_on_one_node(1), costs, sim::EngineLimits{200'000, 8});
  sim::SimWorkloadOf<UncontendedProbe<M>, ProbeParams> w(ProbeParams{rounds});
  sim::TimedStrategy timed(1);
  const sim::ExecutionResult r = engine.run(w, timed, nullptr, 0);
  REQUIRE_FALSE(r.violation);
  return calls_of(w.workload());
}

template <class M>
KernelCalls probe_natively(int rounds) {
  UncontendedProbe<M> w(ProbeParams{rounds});
  std::string violation;
  REQUIRE_FALSE(run_native_lost_wakeup(w, 1, violation));
  REQUIRE(violation.empty());
  return calls_of(w);
}

}  // namespace

TEST_CASE("uncontended, the three-state mutexes stay in user space; the simple one always wakes", "[usync]") {
  constexpr int kRounds = 10;
  SECTION("simulated") {
    CHECK(probe_in_sim<Mutex3<Sim, CountingKernel<Sim>>>(kRounds).total() == 0);
    CHECK(probe_in_sim<Mutex2<Sim, CountingKernel<Sim>>>(kRounds).total() == 0);
    const KernelCalls simple = probe_in_sim<SimpleMutex<Sim, CountingKernel<Sim>>>(kRounds);
    CHECK(simple.wakes == kRounds);
    CHECK(simple.total() == kRounds);
  }
  SECTION("natively") {
    CHECK(probe_natively<Mutex3<Native, CountingKernel<Native>>>(kRounds).total() == 0);
    CHECK(probe_natively<Mutex2<Native, CountingKernel<Native>>>(kRounds).total() == 0);
    const KernelCalls simple = probe_natively<SimpleMutex<Native, CountingKernel<Native>>>(kRounds);
    CHECK(simple.wakes == kRounds);
    CHECK(simple.total() == kRounds);
  }
}

// --- (c): the condvar -----------------------------------------------------------------------

namespace {

inline constexpr int kBufferSlots = 2;

struct BufferParams {
  int consumers = 2;
  int items = 6;
  CondvarConfig condvar;
  int cpus = 4;
};

// One producer, several consumers, a buffer of two slots; a 0 tells a consumer to stop.
// Both sides wait on their own condvar and signal the other's.
template <class M>
struct BufferState {
  using Cv = Condvar<typename M::Platform, M, typename M::Kernel>;
  using Cell = typename M::Platform::template Shared<std::uint64_t>;
  BufferState(typename M::Kernel& k, CondvarConfig c) : mutex(k), not_empty(k, mutex, c), not_full(k, mutex, c) {}
  M mutex;
  Cv not_empty;
  Cv not_full;
  Cell slots[kBufferSlots];
  Cell head{0};
  Cell count{0};
  Cell sum{0};
};

template <class M>
class BoundedBuffer : public UsyncWorkload<M, BufferParams, BufferState<M>> {
  using Base = UsyncWorkload<M, BufferParams, BufferState<M>>;
  using State = BufferState<M>;

 public:
  using P = typename M::Platform;
  using Base::Base;

  void setup(const SpawnFn& spawn) {
    this->make_state(this->p_.cpus, this->p_.consumers + 1, this->p_.condvar);
    spawn("producer", 0, [this] {
      for (int i = 1; i <= this->p_.items; ++i) put(static_cast<std::uint64_t>(i));
      for (int c = 0; c < this->p_.consumers; ++c) put(0);
      this->done_.fetch_add(1);
    });
    for (int c = 0; c < this->p_.consumers; ++c)
      spawn(fmt::format("consumer{}", c), (c + 1) % this->p_.cpus, [this] {
        while (take() != 0) {
        }
        this->done_.fetch_add(1);
      });
  }
  void check() const {
    const auto n = static_cast<std::uint64_t>(this->p_.items);
    if (this->state_->sum.load() != n * (n + 1) / 2 || this->state_->count.load() != 0)
      P::violation("bounded_buffer",
                   fmt::format("consumed a sum of {}, expected {}", this->state_->sum.load(), n * (n + 1) / 2));
  }
  void rescue() {
    this->kernel_.table().wake(this->state_->mutex.word(), INT_MAX);
    this->kernel_.table().wake(this->state_->not_empty.word(), INT_MAX);
    this->kernel_.table().wake(this->state_->not_full.word(), INT_MAX);
  }

 private:
  void put(std::uint64_t value) {
    State& s = *this->state_;
    s.mutex.lock();
    while (s.count.load() == kBufferSlots) s.not_full.wait(s.mutex);
    s.slots[(s.head.load() + s.count.load()) % kBufferSlots].store(value);
    s.count.store(s.count.load() + 1);
    s.not_empty.signal();
    s.mutex.unlock();
  }

  std::uint64_t take() {
    State& s = *this->state_;
    s.mutex.lock();
    while (s.count.load() == 0) s.not_empty.wait(s.mutex);
    const std::uint64_t value = s.slots[s.head.load()].load();
    s.head.store((s.head.load() + 1) % kBufferSlots);
    s.count.store(s.count.load() - 1);
    s.sum.store(s.sum.load() + value);
    s.not_full.signal();
    s.mutex.unlock();
    return value;
  }
};

struct FlagParams {
  int waiters = 3;
  CondvarConfig condvar;
  bool broadcast_under_mutex = false;
  int bystander_rounds = 2;  // a thread that takes the mutex meanwhile, in state 1 when it can
  int cpus = 4;
};

// Several threads wait for a flag; one sets it and broadcasts.
template <class M>
struct FlagState {
  FlagState(typename M::Kernel& k, CondvarConfig c) : mutex(k), cv(k, mutex, c) {}
  M mutex;
  Condvar<typename M::Platform, M, typename M::Kernel> cv;
  typename M::Platform::template Shared<std::uint64_t> ready{0};
  typename M::Platform::template Shared<std::uint64_t> woken{0};
};

template <class M>
class ReadyFlag : public UsyncWorkload<M, FlagParams, FlagState<M>> {
  using Base = UsyncWorkload<M, FlagParams, FlagState<M>>;
  using State = FlagState<M>;

 public:
  using P = typename M::Platform;
  using Base::Base;

  void setup(const SpawnFn& spawn) {
    this->make_state(this->p_.cpus, this->p_.waiters + 2, this->p_.condvar);
    for (int i = 0; i < this->p_.waiters; ++i)
      spawn(fmt::format("waiter{}", i), i % this->p_.cpus, [this] {
        State& s = *this->state_;
        s.mutex.lock();
        while (s.ready.load() == 0) s.cv.wait(s.mutex);
        s.woken.store(s.woken.load() + 1);
        s.mutex.unlock();
        this->done_.fetch_add(1);
      });
    spawn("setter", this->p_.waiters % this->p_.cpus, [this] {
      State& s = *this->state_;
      s.mutex.lock();
      s.ready.store(1);
      if (this->p_.broadcast_under_mutex) s.cv.broadcast();
      s.mutex.unlock();
      if (!this->p_.broadcast_under_mutex) s.cv.broadcast();
      this->done_.fetch_add(1);
    });
    spawn("bystander", (this->p_.waiters + 1) % this->p_.cpus, [this] {
      for (int k = 0; k < this->p_.bystander_rounds; ++k) {
        this->state_->mutex.lock();
        this->state_->mutex.unlock();
      }
      this->done_.fetch_add(1);
    });
  }
  void check() const {
    if (this->state_->woken.load() != static_cast<std::uint64_t>(this->p_.waiters))
      P::violation("ready_flag",
                   fmt::format("{} of {} waiters saw the flag", this->state_->woken.load(), this->p_.waiters));
  }
  int threads() const { return this->p_.waiters + 2; }
  void rescue() {
    this->kernel_.table().wake(this->state_->mutex.word(), INT_MAX);
    this->kernel_.table().wake(this->state_->cv.word(), INT_MAX);
  }
};

}  // namespace

TEST_CASE("a bounded buffer on condvars finishes under random schedules", "[usync][sim][condvar]") {
  const std::uint32_t store_buffers = GENERATE(0U, 8U);
  const auto broadcast = GENERATE(Broadcast::requeue, Broadcast::wake_all);
  CAPTURE(store_buffers, broadcast == Broadcast::requeue);
  const BufferParams params{2, 6, CondvarConfig{broadcast, Relock::contended}, 4};
  const SimTally m3 = run_random<BoundedBuffer<Mutex3<Sim>>>(params, store_buffers, 100, 31);
  INFO(m3.other);
  CHECK(m3.passed == 100);
  const SimTally simple = run_random<BoundedBuffer<SimpleMutex<Sim>>>(params, store_buffers, 100, 37);
  INFO(simple.other);
  CHECK(simple.passed == 100);
}

TEST_CASE("a broadcast wakes every waiter of a flag under random schedules", "[usync][sim][condvar]") {
  const std::uint32_t store_buffers = GENERATE(0U, 8U);
  const auto broadcast = GENERATE(Broadcast::requeue, Broadcast::wake_all);
  const bool under_mutex = GENERATE(false, true);
  CAPTURE(store_buffers, broadcast == Broadcast::requeue, under_mutex);
  const FlagParams params{3, CondvarConfig{broadcast, Relock::contended}, under_mutex, 2, 4};
  const SimTally m3 = run_random<ReadyFlag<Mutex3<Sim>>>(params, store_buffers, 100, 41);
  INFO(m3.other);
  CHECK(m3.passed == 100);
  const SimTally m2 = run_random<ReadyFlag<Mutex2<Sim>>>(params, store_buffers, 100, 43);
  INFO(m2.other);
  CHECK(m2.passed == 100);
}

TEST_CASE("a requeued waiter is lost when the woken one relocks in state 1", "[usync][sim][condvar]") {
  // Why wait() relocks in state 2: with a plain relock, the one the broadcast woke takes a
  // free mutex in state 1 and its unlock never wakes those moved onto the mutex word.
  const FlagParams params{3, CondvarConfig{Broadcast::requeue, Relock::plain}, false, 0, 4};
  const SimTally broken = run_random<ReadyFlag<Mutex3<Sim>>>(params, 8, 300, 47);
  INFO(broken.other);
  CHECK(broken.other.empty());
  CHECK(broken.deadlocks > 0);
  // Waking everyone instead needs no contended relock: each woken waiter locks on its own.
  const FlagParams herd{3, CondvarConfig{Broadcast::wake_all, Relock::plain}, false, 2, 4};
  const SimTally fine = run_random<ReadyFlag<Mutex3<Sim>>>(herd, 8, 300, 47);
  INFO(fine.other);
  CHECK(fine.passed == 300);
}

TEST_CASE("the condvars finish natively", "[usync][native][condvar]") {
  const auto broadcast = GENERATE(Broadcast::requeue, Broadcast::wake_all);
  CAPTURE(broadcast == Broadcast::requeue);
  const int cpus = host_threads();
  std::string violation;
  {
    const BufferParams params{std::max(2, cpus - 1), 5000, CondvarConfig{broadcast, Relock::contended}, cpus};
    BoundedBuffer<Mutex3<Native>> w(params);
    CHECK_FALSE(run_native_lost_wakeup(w, params.consumers + 1, violation));
    CHECK(violation.empty());
  }
  for (int round = 0; round < 200; ++round) {
    const FlagParams params{std::max(3, cpus), CondvarConfig{broadcast, Relock::contended}, round % 2 == 0, 50, cpus};
    ReadyFlag<Mutex3<Native>> w(params);
    const bool lost = run_native_lost_wakeup(w, w.threads(), violation);
    INFO(violation);
    REQUIRE_FALSE(lost);
    REQUIRE(violation.empty());
  }
}
