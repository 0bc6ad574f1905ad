// ring: a token passed around a ring of threads, each asleep in FUTEX_WAIT until the token
// reaches it (the seed's benchmark for adaptive idling, docs/os.md: "a 'ping-pong' threads
// program that sends a single token around a ring of threads"). Thread i runs on CPU
// (i * cpu_stride) % cpus, so with one thread per CPU every hop wakes an idle CPU: the idle
// loop's wake-up cost is the benchmark's cost (sim/exec/idle_model.hpp).
//
// Each thread owns a futex word on a line of its own. The token is a count: thread i,
// seeing its word change to v, stores v + 1 in the next thread's word and wakes it. Before
// sleeping, a thread may spin `spin` times reading its word (pause between reads): the
// user-space analogue of the idle loop's spin, and the one a native run can choose, since
// the host kernel's idle loop is not ours to change.
//
// Thread 0 sends the token round `laps` times (or until its window closes), then a stop
// token, which every thread forwards before it leaves; so nothing depends on timing.
//
// Metrics: hops (token passes), hops_per_s, hop_ns (one pass: the waker's store and
// FUTEX_WAKE, the sleeper's wake-up), laps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/futex/futex_backend.hpp"
#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

struct FutexRingParams {
  futex::FutexConfig config;
  std::string design = "custom";  // the name the scenario gave the design
  int threads = 4;                // the ring's length
  int cpus = 4;                   // thread i runs on CPU (i * cpu_stride) % cpus
  int cpu_stride = 1;
  std::uint32_t spin = 0;                // reads of its word (with a pause between) before sleeping
  std::uint32_t work = 0;                // compute units (Work::compute) a thread spends holding the
                                         // token before passing it on: a lighter load per CPU
  futex::FutexMachine machine;           // what a table is sized for
  std::uint64_t runtime_ns = 1'000'000;  // thread 0's window
  std::uint64_t laps = 0;                // stop after this many laps (0: the window decides)
};

template <Platform P, class Backend = futex::FutexTable<P>>
requires futex::FutexBackend<Backend, typename P::template Atomic<std::uint32_t>>
class FutexRing {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  using Word = typename P::template Atomic<std::uint32_t>;

  explicit FutexRing(const FutexRingParams& params) : p_(params) {}
  ~FutexRing() {
    if (words_ != nullptr) P::deallocate(words_, bytes());
  }
  FutexRing(const FutexRing&) = delete;
  FutexRing& operator=(const FutexRing&) = delete;

  void setup(const SpawnFn& spawn) {
    futex::emplace_backend(futex_, p_.config, p_.machine, p_.threads);
    words_ = static_cast<Word*>(P::allocate(bytes(), kCacheLineBytes, 0));
    for (int i = 0; i < p_.threads; ++i) {
      new (word(i)) Word(0);
      P::label(word(i), sizeof(Word), fmt::format("ring[{}].token", i));
    }
    for (int i = 0; i < p_.threads; ++i) {
      const int cpu = static_cast<int>((static_cast<std::int64_t>(i) * p_.cpu_stride) % p_.cpus);
      spawn(fmt::format("ring{}", i), cpu, [this, i] { i == 0 ? lead() : follow(i); });
    }
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", p_.design);
    m.labels.emplace_back("futex", futex::describe_backend(*futex_));
    m.values.emplace_back("threads", p_.threads);
    m.values.emplace_back("spin", static_cast<double>(p_.spin));
    m.values.emplace_back("work", static_cast<double>(p_.work));
    m.values.emplace_back("laps", static_cast<double>(laps_));
    const std::uint64_t hops = laps_ * static_cast<std::uint64_t>(p_.threads);
    m.values.emplace_back("hops", static_cast<double>(hops));
    m.values.emplace_back("hops_per_s",
                          elapsed_ns_ == 0 ? 0 : static_cast<double>(hops) * 1e9 / static_cast<double>(elapsed_ns_));
    m.values.emplace_back("hop_ns", hops == 0 ? 0 : static_cast<double>(elapsed_ns_) / static_cast<double>(hops));
    return m;
  }

 private:
  static constexpr std::uint32_t kStop = 0xffffffffU;
  // One word a line: a thread's spinning must not share its line with the others' stores.
  static constexpr std::size_t kStride = kCacheLineBytes / sizeof(Word);

  std::size_t bytes() const { return static_cast<std::size_t>(p_.threads) * kCacheLineBytes; }
  Word* word(int i) const { return words_ + static_cast<std::size_t>(i) * kStride; }
  int next(int i) const { return i + 1 == p_.threads ? 0 : i + 1; }

  void pass(int to, std::uint32_t token) {
    if (p_.work > 0 && token != kStop) P::charge(Work::compute, p_.work);
    Word& w = *word(to);
    w.store(token, std::memory_order_release);
    futex_->wake(w, 1);
  }

  // Waits until thread i's word is no longer `seen`: spins first, then sleeps.
  std::uint32_t receive(int i, std::uint32_t seen) {
    Word& w = *word(i);
    std::uint32_t v = 0;
    for (std::uint32_t s = 0; s < p_.spin; ++s) {
      if ((v = w.load(std::memory_order_acquire)) != seen) return v;
      P::cpu_relax();
    }
    while ((v = w.load(std::memory_order_acquire)) == seen) futex_->wait(w, seen);
    return v;
  }

  void lead() {
    const std::uint64_t start = P::now();
    const std::uint64_t deadline = start + p_.runtime_ns;
    std::uint32_t mine = 0;  // word 0 as last read: the token as it came back
    std::uint64_t laps = 0;
    for (;;) {
      pass(next(0), mine + 1);
      mine = receive(0, mine);  // threads - 1 hops later: mine + threads - 1
      ++laps;
      if ((p_.laps != 0 && laps == p_.laps) || (p_.laps == 0 && P::now() >= deadline)) break;
    }
    elapsed_ns_ = P::now() - start;
    laps_ = laps;
    pass(next(0), kStop);
    receive(0, mine);  // the stop, back around
  }

  void follow(int i) {
    std::uint32_t seen = 0;
    for (;;) {
      seen = receive(i, seen);
      if (seen == kStop) {
        pass(next(i), kStop);
        return;
      }
      pass(next(i), seen + 1);
    }
  }

  FutexRingParams p_;
  std::optional<Backend> futex_;
  Word* words_ = nullptr;
  std::uint64_t laps_ = 0;
  std::uint64_t elapsed_ns_ = 0;
};

}  // namespace lockstep
