// The native futex backends: the kernel's futex(2), std::atomic wait/notify and our
// table on NativePlatform, each with futex semantics on real threads, and the futex
// workloads running on each of them.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>

#include "axiomatic/futex_keys.hpp"
#include "core/futex/futex_backend.hpp"
#include "core/futex/futex_designs.hpp"
#include "core/futex/futex_table.hpp"
#include "core/workloads/futex_hash.hpp"
#include "core/workloads/futex_pingpong.hpp"
#include "native/atomic_wait_futex.hpp"
#include "native/kernel_futex.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"

using namespace lockstep;
using native::NativePlatform;
using Table = futex::FutexTable<NativePlatform>;
using Word = NativePlatform::Atomic<std::uint32_t>;

static_assert(futex::FutexBackend<Table, Word>);
static_assert(futex::TableBackend<Table>);
static_assert(!futex::TableBackend<native::KernelFutex>);

namespace {

futex::FutexConfig linux_3_14() { return futex::named_design("linux-3.14")->config; }

// In place: a table cannot move.
template <class B>
void make_backend(std::optional<B>& slot) {
  futex::emplace_backend(slot, linux_3_14(), futex::FutexMachine{2, 1, 1}, 2);
}

// Runs a workload on pinned native threads; returns whether some thread reported a violation.
template <class W>
bool run_natively(W& workload) {
  native::NativeRunner runner;
  workload.setup([&runner](std::string name, CpuId cpu, std::function<void()> body) {
    runner.spawn(std::move(name), cpu, std::move(body));
  });
  return runner.run().violation.has_value();
}

}  // namespace

TEMPLATE_TEST_CASE("a native futex backend returns EAGAIN when the word does not hold the value", "[futex][native]",
                   native::KernelFutex, native::AtomicWaitFutex, Table) {
  std::optional<TestType> backend;
  make_backend(backend);
  Word word{7};
  CHECK(backend->wait(word, 6) == futex::FutexError::eagain);
  CHECK(backend->wake(word, 1).woken == 0);  // nobody sleeps on it
}

TEMPLATE_TEST_CASE("a native futex backend wakes a sleeper", "[futex][native]", native::KernelFutex,
                   native::AtomicWaitFutex, Table) {
  std::optional<TestType> backend;
  make_backend(backend);
  Word word{0};
  std::atomic<bool> awake{false};
  std::atomic<int> returns{0};  // wait() calls that came back while the word still held 0
  std::thread sleeper([&] {
    while (word.load(std::memory_order_acquire) == 0) {
      backend->wait(word, 0);
      if (word.load(std::memory_order_acquire) == 0) returns.fetch_add(1);
    }
    awake.store(true);
  });
  // The sleeper must sleep, not spin: a wait that does not block would come back thousands
  // of times in 20 ms (a spurious wakeup or two is allowed).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(returns.load() <= 2);
  word.store(1, std::memory_order_release);
  backend->wake(word, 1);
  // A watchdog instead of a bare join: a lost wakeup fails the test within 10 s rather
  // than hanging it; the test then wakes the sleeper again so that it can be joined.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!awake.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(awake.load());  // false: the wake was lost
  while (!awake.load()) {
    backend->wake(word, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  sleeper.join();
}

TEMPLATE_TEST_CASE("a native futex backend loses no wakeup in hundreds of ping-pong rounds", "[futex][native]",
                   native::KernelFutex, native::AtomicWaitFutex, Table) {
  // One pair, two words cycled: every round trip is two sleeps and two wakes on real
  // threads; a lost wakeup would hang the run rather than end it short.
  FutexPingpongParams p;
  p.config = linux_3_14();
  p.threads = 2;
  p.words = GENERATE(1, 2, 64);
  p.cpus = 2;
  p.machine = futex::FutexMachine{2, 1, 2};
  p.runtime_ns = 60'000'000'000;  // the rounds end it
  p.rounds = 300;
  FutexPingpong<NativePlatform, TestType> pingpong(p);
  CHECK_FALSE(run_natively(pingpong));
  const WorkloadMetrics m = pingpong.metrics();
  CHECK(m.value("round_trips") == 300);
  CHECK(m.value("round_trips_per_s") > 0);
}

TEMPLATE_TEST_CASE("futex-hash runs natively on every backend", "[futex][native]", native::KernelFutex,
                   native::AtomicWaitFutex, Table) {
  FutexHashParams p;
  p.config = linux_3_14();
  p.threads = 2;
  p.futexes = 64;
  p.cpus = 2;
  p.machine = futex::FutexMachine{2, 1, 2};
  p.runtime_ns = 10'000'000;
  p.op = GENERATE(FutexHashOp::wait, FutexHashOp::wake);
  FutexHash<NativePlatform, TestType> hash(p);
  CHECK_FALSE(run_natively(hash));
  CHECK(hash.total_ops() > 0);
  CHECK(hash.metrics().value("ops_per_s") > 0);
}

// `keys: colliding` on the user-space table natively (the kernel's keys cannot be
// computed from user space). The finder is Z3's; the workload checks its answer with the
// table it will use, and a finder whose addresses the table spreads is refused.
TEST_CASE("futex-hash with colliding keys natively: every word in one bucket of the process's table",
          "[futex][native][keys]") {
  FutexHashParams p;
  p.config = futex::named_design("linux-6.16-private")->config;
  p.threads = 2;
  p.futexes = 64;
  p.cpus = 2;
  p.machine = futex::FutexMachine{2, 1, 2};
  p.runtime_ns = 5'000'000;
  p.processes = 2;
  p.keys = futex::KeyChoice::colliding;
  p.key_count = 4;
  p.colliding_processes = 1;
  p.find_keys = axiomatic::find_colliding_keys;
  {
    FutexHash<NativePlatform, Table> hash(p);
    CHECK_FALSE(run_natively(hash));
    const WorkloadMetrics m = hash.metrics();
    CHECK(m.value("ops_per_s_p0") > 0);
    CHECK(m.value("ops_per_s_p1") > 0);
    CHECK(m.value("colliding_bucket_p0") < 16);  // one of the 16 buckets of process 0's table
  }
  // A finder that returns consecutive words: the table's hash spreads them, and setup says so
  // (8 words: the chance that the hash puts all in one of 16 buckets is 16^-7).
  p.key_count = 8;
  p.find_keys = [](const futex::CollidingKeyRequest& r) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t i = 0; i < r.count; ++i) out.push_back(r.lo + 4 * i);
    return out;
  };
  FutexHash<NativePlatform, Table> spread(p);
  CHECK_THROWS_WITH(run_natively(spread), Catch::Contains("different buckets"));
}
