// futex-hash: `perf bench futex hash` (docs/sources.md section 1). T threads, pinned round robin over the
// CPUs, each loop over their own F futexes (default 1024) calling FUTEX_WAIT with a value
// that does not match, so every call returns EAGAIN at once: it measures hashing the key,
// the bucket lock and the value check, not sleeping. Output: per-thread ops/s and their
// average, and the total.
//
// With `op: wake` every call is instead a FUTEX_WAKE that finds nobody waiting: the seed's
// "free ride for futex(2) calls returning 0" that the wake fast path (b0c29f79) gives.
//
// Two deviations from perf, both so that a simulated run of microseconds measures what a
// 10-second perf run does: each thread first makes `warmup_passes` passes over its futexes
// unmeasured (perf's first pass is a negligible part of 10 s, but would be all of a short
// simulated window: every bucket line cold), then all meet at a barrier; each measures
// `runtime` from when it sees the barrier open (on hundreds of CPUs the last one sees it
// microseconds after the first) and then keeps calling, unmeasured, until every thread's
// window has closed, so every window sees all threads competing, as perf's 10 s do; and each
// checks its clock after every call rather than after each pass of F calls.
//
// The futex is a backend (core/futex/futex_backend.hpp): our table by default, simulated or
// native; natively also the kernel's futex(2) or std::atomic wait/notify.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/futex/futex_backend.hpp"
#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

enum class FutexHashOp : std::uint8_t { wait, wake };

struct FutexHashParams {
  FutexHashOp op = FutexHashOp::wait;
  futex::FutexConfig config;
  std::string design = "custom";  // the name the scenario gave the configuration
  int threads = 4;
  int futexes = 1024;             // per thread (perf's default)
  int cpus = 1;                   // threads are pinned round robin over CPUs 0..cpus-1
  futex::FutexMachine machine;    // what the table is sized for
  std::uint64_t runtime_ns = 20'000;  // per thread, after its warm-up
  int warmup_passes = 1;
  std::uint32_t mismatch = 1234;      // the value perf passes; the words hold 0
};

template <Platform P, class Backend = futex::FutexTable<P>>
  requires futex::FutexBackend<Backend, typename P::template Atomic<std::uint32_t>>
class FutexHash {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  using Word = typename P::template Atomic<std::uint32_t>;

  explicit FutexHash(const FutexHashParams& params)
      : params_(params), ops_(static_cast<std::size_t>(params.threads), 0), locks_(ops_) {}
  ~FutexHash() {
    if (barrier_ != nullptr) destroy_on<P>(barrier_);
    if (finished_ != nullptr) destroy_on<P>(finished_);
    if (start_ns_ != nullptr) destroy_on<P>(start_ns_);
    for (Word* words : words_) P::deallocate(words, bytes_per_thread());
  }
  FutexHash(const FutexHash&) = delete;
  FutexHash& operator=(const FutexHash&) = delete;

  void setup(const SpawnFn& spawn) {
    futex::emplace_backend(futex_, params_.config, params_.machine, params_.threads);
    barrier_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
    start_ns_ = make_on<P, typename P::template Atomic<std::uint64_t>>(0, kCacheLineBytes, std::uint64_t{0});
    finished_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
    P::label(barrier_, sizeof *barrier_, "barrier");
    P::label(finished_, sizeof *finished_, "finished");
    P::label(start_ns_, sizeof *start_ns_, "start_ns");
    for (int t = 0; t < params_.threads; ++t) {
      // perf callocs every worker's futexes from the main thread, so they sit on its node.
      auto* words = static_cast<Word*>(P::allocate(bytes_per_thread(), kCacheLineBytes, 0));
      for (int f = 0; f < params_.futexes; ++f) new (&words[f]) Word(0);
      P::label(words, bytes_per_thread(), "futexes_t" + std::to_string(t));
      words_.push_back(words);
    }
    for (int t = 0; t < params_.threads; ++t) spawn("t" + std::to_string(t), t % params_.cpus, [this, t] { body(t); });
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", params_.design);
    m.labels.emplace_back("futex", futex::describe_backend(*futex_));
    m.values.emplace_back("threads", params_.threads);
    m.values.emplace_back("futexes", params_.futexes);
    if constexpr (futex::TableBackend<Backend>)
      m.values.emplace_back("buckets", static_cast<double>(futex_->buckets_per_table()) * futex_->tables());
    const double seconds = static_cast<double>(params_.runtime_ns) * 1e-9;
    m.per_thread_name = "per_thread_ops_per_s";
    for (std::uint64_t n : ops_) m.per_thread.push_back(static_cast<double>(n) / seconds);
    const double total = static_cast<double>(total_ops()) / seconds;
    m.values.emplace_back("ops_per_s", total);
    m.values.emplace_back("ops_per_s_per_thread", total / params_.threads);
    m.values.emplace_back("release_skew_ns", static_cast<double>(*std::max_element(released_.begin(), released_.end())));
    if (futex::TableBackend<Backend> && params_.op == FutexHashOp::wake) {
      std::uint64_t locks = 0;
      for (std::uint64_t n : locks_) locks += n;
      m.values.emplace_back("bucket_locks_per_op", total_ops() == 0 ? 0 : static_cast<double>(locks) / static_cast<double>(total_ops()));
    }
    return m;
  }

  std::uint64_t total_ops() const {
    std::uint64_t sum = 0;
    for (std::uint64_t n : ops_) sum += n;
    return sum;
  }

 private:
  std::size_t bytes_per_thread() const { return sizeof(Word) * static_cast<std::size_t>(params_.futexes); }

  void body(int t) {
    Word* words = words_[static_cast<std::size_t>(t)];
    for (int pass = 0; pass < params_.warmup_passes; ++pass)
      for (int i = 0; i < params_.futexes; ++i) call(words[i]);
    // Everyone measures the same window: the one that starts when the last thread is ready.
    const auto everyone = static_cast<std::uint32_t>(params_.threads);
    if (barrier_->fetch_add(1, std::memory_order_acq_rel) + 1 == everyone) start_ns_->store(P::now(), std::memory_order_release);
    while (barrier_->load(std::memory_order_acquire) != everyone) P::cpu_relax();
    std::uint64_t start = 0;
    while ((start = start_ns_->load(std::memory_order_acquire)) == 0) P::cpu_relax();
    const std::uint64_t own_start = P::now();
    const std::uint64_t deadline = own_start + params_.runtime_ns;
    released_[static_cast<std::size_t>(t)] = own_start - start;
    std::uint64_t ops = 0;
    std::uint64_t locks = 0;
    for (int i = 0; P::now() < deadline; i = i + 1 == params_.futexes ? 0 : i + 1) {
      locks += call(words[i]) ? 1 : 0;
      ++ops;
    }
    ops_[static_cast<std::size_t>(t)] = ops;
    finished_->fetch_add(1, std::memory_order_acq_rel);
    for (int i = 0; finished_->load(std::memory_order_acquire) != everyone; i = i + 1 == params_.futexes ? 0 : i + 1)
      call(words[i]);
    locks_[static_cast<std::size_t>(t)] = locks;
  }

  // One futex call; returns whether it took the bucket lock.
  bool call(Word& word) {
    if (params_.op == FutexHashOp::wait) {
      if (futex_->wait(word, params_.mismatch) != futex::FutexError::eagain)
        P::violation("futex_semantics", "a wait on a word that does not hold the expected value did not return EAGAIN");
      return true;
    }
    const futex::WakeResult r = futex_->wake(word, 1);
    if (r.woken != 0) P::violation("futex_semantics", "a wake on a futex nobody waits on woke someone");
    return r.took_lock;
  }

  FutexHashParams params_;
  std::optional<Backend> futex_;
  std::vector<Word*> words_;
  std::vector<std::uint64_t> ops_;
  std::vector<std::uint64_t> locks_;  // wake: calls that took the bucket lock
  std::vector<std::uint64_t> released_ = std::vector<std::uint64_t>(static_cast<std::size_t>(params_.threads), 0);
  typename P::template Atomic<std::uint32_t>* barrier_ = nullptr;  // threads done warming up
  typename P::template Atomic<std::uint32_t>* finished_ = nullptr;  // threads whose window has closed
  typename P::template Atomic<std::uint64_t>* start_ns_ = nullptr;  // when the window opened (never 0 once set)
};

}  // namespace lockstep
