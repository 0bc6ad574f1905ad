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
//
// Two additions of ours, for worst-case keys (docs/futex.md, "Colliding keys"): `processes`
// splits the threads into that many processes (contiguous blocks), which share one table,
// except under the per-process private table (6.16), where each has its own; and
// `keys: colliding` gives the threads of the first `colliding_processes` processes, instead of
// their own arrays, `key_count` words at addresses whose keys all land in one bucket of their
// table, found at setup by `find_keys` for where the memory actually is. [simplification] All
// processes' private keys carry one address-space id: their words lie at different addresses,
// so their hashes are as unrelated as with distinct ids.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/futex/colliding_keys.hpp"
#include "core/futex/futex_backend.hpp"
#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/properties.hpp"
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
  int futexes = 1024;                 // per thread (perf's default)
  int cpus = 1;                       // threads are pinned round robin over CPUs 0..cpus-1
  futex::FutexMachine machine;        // what the table is sized for
  std::uint64_t runtime_ns = 20'000;  // per thread, after its warm-up
  int warmup_passes = 1;
  std::uint32_t mismatch = 1234;  // the value perf passes; the words hold 0
  int processes = 1;              // threads in contiguous blocks; see above
  futex::KeyChoice keys = futex::KeyChoice::spread;
  int key_count = 8;                    // colliding words per colliding process
  int colliding_processes = 0;          // the first N processes collide (0: all of them)
  futex::CollidingKeyFinder find_keys;  // required for colliding keys
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
    for (const Region& r : regions_) P::deallocate(r.host, r.bytes);
  }
  FutexHash(const FutexHash&) = delete;
  FutexHash& operator=(const FutexHash&) = delete;

  void setup(const SpawnFn& spawn) {
    if (params_.processes < 1 || params_.processes > params_.threads)
      throw std::invalid_argument("futex-hash: processes must be between 1 and the number of threads");
    if (params_.keys == futex::KeyChoice::colliding && params_.key_count < 1)
      throw std::invalid_argument("futex-hash: key_count must be positive");
    // One table for all, or (the private table) one per process, sized for its threads.
    const bool per_process = futex::TableBackend<Backend> && params_.config.sizing == futex::Sizing::process_private;
    for (int p = 0; p < (per_process ? params_.processes : 1); ++p)
      futex::emplace_backend(tables_.emplace_back(), params_.config, params_.machine,
                             per_process ? threads_of(p) : params_.threads);
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
    if (params_.keys == futex::KeyChoice::colliding)
      for (int p = 0; p < colliding_processes(); ++p) place_colliding_words(p);
    for (int t = 0; t < params_.threads; ++t) spawn("t" + std::to_string(t), t % params_.cpus, [this, t] { body(t); });
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", params_.design);
    m.labels.emplace_back("futex", futex::describe_backend(*tables_.front()));
    m.labels.emplace_back("keys", params_.keys == futex::KeyChoice::colliding ? "colliding" : "default");
    m.values.emplace_back("threads", params_.threads);
    m.values.emplace_back("futexes", params_.futexes);
    if constexpr (futex::TableBackend<Backend>)
      m.values.emplace_back("buckets",
                            static_cast<double>(tables_.front()->buckets_per_table()) * tables_.front()->tables());
    const double seconds = static_cast<double>(params_.runtime_ns) * 1e-9;
    if (params_.processes > 1 || params_.keys == futex::KeyChoice::colliding) {
      m.values.emplace_back("processes", params_.processes);
      for (int p = 0; p < params_.processes; ++p) {
        std::uint64_t n = 0;
        for (int t = 0; t < params_.threads; ++t)
          if (process_of(t) == p) n += ops_[static_cast<std::size_t>(t)];
        m.values.emplace_back("ops_per_s_p" + std::to_string(p), static_cast<double>(n) / seconds);
      }
      for (const Region& r : regions_) {
        m.values.emplace_back("colliding_bucket_p" + std::to_string(r.process), r.bucket);
      }
    }
    m.per_thread_name = "per_thread_ops_per_s";
    for (std::uint64_t n : ops_) m.per_thread.push_back(static_cast<double>(n) / seconds);
    const double total = static_cast<double>(total_ops()) / seconds;
    m.values.emplace_back("ops_per_s", total);
    m.values.emplace_back("ops_per_s_per_thread", total / params_.threads);
    m.values.emplace_back("release_skew_ns",
                          static_cast<double>(*std::max_element(released_.begin(), released_.end())));
    if (futex::TableBackend<Backend> && params_.op == FutexHashOp::wake) {
      std::uint64_t locks = 0;
      for (std::uint64_t n : locks_) locks += n;
      m.values.emplace_back("bucket_locks_per_op",
                            total_ops() == 0 ? 0 : static_cast<double>(locks) / static_cast<double>(total_ops()));
    }
    return m;
  }

  std::uint64_t total_ops() const {
    std::uint64_t sum = 0;
    for (std::uint64_t n : ops_) sum += n;
    return sum;
  }

 private:
  // Memory handed to the key finder, and the words it chose there.
  struct Region {
    int process = 0;
    void* host = nullptr;
    std::size_t bytes = 0;
    std::vector<Word*> words;
    double bucket = 0;  // where the table put the first word (all share it)
  };

  std::size_t bytes_per_thread() const { return sizeof(Word) * static_cast<std::size_t>(params_.futexes); }
  int process_of(int t) const { return t * params_.processes / params_.threads; }
  int threads_of(int p) const {
    int n = 0;
    for (int t = 0; t < params_.threads; ++t) n += process_of(t) == p ? 1 : 0;
    return n;
  }
  int colliding_processes() const {
    return params_.colliding_processes == 0 ? params_.processes
                                            : std::min(params_.colliding_processes, params_.processes);
  }
  Backend& table_of(int t) { return *tables_[tables_.size() == 1 ? 0 : static_cast<std::size_t>(process_of(t))]; }

  // Asks the finder for `key_count` addresses in a fresh region whose keys share a bucket of
  // the table process `p` uses, and builds the words there.
  void place_colliding_words(int p) {
    if constexpr (!futex::TableBackend<Backend>) {
      throw std::invalid_argument(
          "futex-hash: colliding keys need one of our tables: the host's futex keys cannot be "
          "computed from user space (the kernel hashes its own pointers)");
    } else {
      if (!params_.find_keys) throw std::invalid_argument("futex-hash: colliding keys, but no key finder");
      const int first = [&] {
        int t = 0;
        while (process_of(t) != p) ++t;
        return t;
      }();
      Backend& table = table_of(first);
      futex::FutexMachine machine = params_.machine;
      machine.threads = tables_.size() == 1 ? params_.threads : threads_of(p);
      const std::uint64_t pages = futex::colliding_region_pages(
          static_cast<std::uint64_t>(params_.key_count), std::uint64_t{table.buckets_per_table()} * table.tables());
      Region r{p, nullptr, static_cast<std::size_t>(pages * futex::kPageBytes), {}, 0};
      r.host = P::allocate(r.bytes, futex::kPageBytes, 0);
      P::label(r.host, r.bytes, "colliding_p" + std::to_string(p));
      const std::uint64_t base = P::address_of(r.host);
      const std::vector<std::uint64_t> addresses = params_.find_keys(
          {params_.config, machine, base, base + r.bytes, static_cast<std::uint64_t>(params_.key_count), sizeof(Word)});
      if (addresses.size() != static_cast<std::size_t>(params_.key_count))
        throw std::runtime_error("futex-hash: the key finder returned the wrong number of addresses");
      for (std::uint64_t a : addresses) {
        if (a < base || a + sizeof(Word) > base + r.bytes || a % sizeof(Word) != 0)
          throw std::runtime_error("futex-hash: the key finder returned an address outside its region");
        Word* w = new (static_cast<std::byte*>(r.host) + (a - base)) Word(0);
        r.words.push_back(w);
      }
      // Checked here as well, with the table the threads will use: one bucket for all.
      const auto [table0, bucket0] = table.bucket_of(*r.words.front());
      for (Word* w : r.words)
        if (table.bucket_of(*w) != std::pair{table0, bucket0})
          throw std::runtime_error("futex-hash: colliding keys that the table puts in different buckets");
      r.bucket = static_cast<double>(bucket0);
      regions_.push_back(std::move(r));
    }
  }

  void body(int t) {
    if (params_.keys == futex::KeyChoice::colliding && process_of(t) < colliding_processes()) {
      colliding_body(t);
      return;
    }
    Word* words = words_[static_cast<std::size_t>(t)];
    run(
        t, [&](int i) -> Word& { return words[i]; }, params_.futexes);
  }

  // Each thread of a colliding process cycles over its process's words, from its own start.
  void colliding_body(int t) {
    const Region* mine = nullptr;
    for (const Region& r : regions_)
      if (r.process == process_of(t)) mine = &r;
    const std::vector<Word*>& words = mine->words;
    const int n = static_cast<int>(words.size());
    run(
        t, [&](int i) -> Word& { return *words[static_cast<std::size_t>((i + t) % n)]; }, n);
  }

  template <class WordAt>
  void run(int t, WordAt word_at, int futexes) {
    Backend& futex = table_of(t);
    for (int pass = 0; pass < params_.warmup_passes; ++pass)
      for (int i = 0; i < futexes; ++i) call(futex, word_at(i));
    // Everyone measures the same window: the one that starts when the last thread is ready.
    const auto everyone = static_cast<std::uint32_t>(params_.threads);
    if (barrier_->fetch_add(1, std::memory_order_acq_rel) + 1 == everyone)
      start_ns_->store(P::now(), std::memory_order_release);
    while (barrier_->load(std::memory_order_acquire) != everyone) P::cpu_relax();
    std::uint64_t start = 0;
    while ((start = start_ns_->load(std::memory_order_acquire)) == 0) P::cpu_relax();
    const std::uint64_t own_start = P::now();
    const std::uint64_t deadline = own_start + params_.runtime_ns;
    released_[static_cast<std::size_t>(t)] = own_start - start;
    std::uint64_t ops = 0;
    std::uint64_t locks = 0;
    for (int i = 0; P::now() < deadline; i = i + 1 == futexes ? 0 : i + 1) {
      locks += call(futex, word_at(i)) ? 1 : 0;
      ++ops;
    }
    ops_[static_cast<std::size_t>(t)] = ops;
    finished_->fetch_add(1, std::memory_order_acq_rel);
    for (int i = 0; finished_->load(std::memory_order_acquire) != everyone; i = i + 1 == futexes ? 0 : i + 1)
      call(futex, word_at(i));
    locks_[static_cast<std::size_t>(t)] = locks;
  }

  // One futex call; returns whether it took the bucket lock.
  bool call(Backend& futex, Word& word) {
    if (params_.op == FutexHashOp::wait) {
      if (futex.wait(word, params_.mismatch) != futex::FutexError::eagain)
        P::violation(property::futex_semantics,
                     "a wait on a word that does not hold the expected value did not return EAGAIN");
      return true;
    }
    const futex::WakeResult r = futex.wake(word, 1);
    if (r.woken != 0) P::violation(property::futex_semantics, "a wake on a futex nobody waits on woke someone");
    return r.took_lock;
  }

  FutexHashParams params_;
  std::deque<std::optional<Backend>> tables_;  // deque: a table never moves
  std::vector<Word*> words_;
  std::vector<Region> regions_;
  std::vector<std::uint64_t> ops_;
  std::vector<std::uint64_t> locks_;  // wake: calls that took the bucket lock
  std::vector<std::uint64_t> released_ = std::vector<std::uint64_t>(static_cast<std::size_t>(params_.threads), 0);
  typename P::template Atomic<std::uint32_t>* barrier_ = nullptr;   // threads done warming up
  typename P::template Atomic<std::uint32_t>* finished_ = nullptr;  // threads whose window has closed
  typename P::template Atomic<std::uint64_t>* start_ns_ = nullptr;  // when the window opened (never 0 once set)
};

}  // namespace lockstep
