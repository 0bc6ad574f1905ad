// futex-wake and futex-requeue: `perf bench futex wake` and `perf bench futex requeue`
// (docs/sources.md section 1, "Siblings"). S sleepers block on one futex; once all are asleep the waker
// wakes them k at a time (wake), or moves them k at a time onto a second futex and then
// wakes them all there (requeue). Measured per round: how long the waker's calls took, and
// how long each sleeper took to come back after the round began. Several rounds.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

enum class FutexWakeMode : std::uint8_t { wake, requeue };

// [guess] How long the waker waits between looks at the sleepers: about a microsecond.
inline constexpr std::uint32_t kPollInstructions = 1000;

struct FutexWakeParams {
  FutexWakeMode mode = FutexWakeMode::wake;
  futex::FutexConfig config;
  std::string design = "custom";
  int sleepers = 4;
  int batch = 1;  // k: woken (wake) or requeued (requeue) per call; perf's default is 1
  int rounds = 3;
  int cpus = 2;  // the waker runs on CPU 0, sleepers round robin over 1..cpus-1 (0 if alone)
  // Once every sleeper is queued, the waker waits this long more before it wakes them, as
  // perf does (it sleeps 100 ms): a queued sleeper is not yet asleep in the kernel, and
  // natively a waker that does not wait catches it on its way there (its FUTEX_WAIT then
  // returns EAGAIN and nobody sleeps). Simulated, a queued thread parks at once; the settle
  // only moves the round later in virtual time.
  std::uint64_t settle_ns = 100'000;
  futex::FutexMachine machine;
};

template <Platform P>
class FutexWake {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  using Word = typename P::template Atomic<std::uint32_t>;

  explicit FutexWake(const FutexWakeParams& p) : p_(p) {}
  ~FutexWake() {
    if (words_ != nullptr) destroy_on<P>(words_);
  }
  FutexWake(const FutexWake&) = delete;
  FutexWake& operator=(const FutexWake&) = delete;

  void setup(const SpawnFn& spawn) {
    futex::FutexMachine machine = p_.machine;
    machine.threads = p_.sleepers + 1;
    table_.emplace(p_.config, machine);
    words_ = make_on<P, Words>(0, kCacheLineBytes);
    P::label(&words_->round, sizeof(Word), "round");
    P::label(&words_->target, sizeof(Word), "requeue_target");
    for (int i = 0; i < p_.sleepers; ++i) {
      const CpuId cpu = p_.cpus > 1 ? 1 + i % (p_.cpus - 1) : 0;
      spawn("sleeper" + std::to_string(i), cpu, [this] { sleeper(); });
    }
    spawn("waker", 0, [this] { waker(); });
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", p_.design);
    m.labels.emplace_back("futex", futex::describe(p_.config));
    m.values.emplace_back("sleepers", p_.sleepers);
    m.values.emplace_back("batch", p_.batch);
    m.values.emplace_back("rounds", p_.rounds);
    m.values.emplace_back("settle_us", static_cast<double>(p_.settle_ns) / 1000.0);
    const double rounds = static_cast<double>(p_.rounds);
    m.values.emplace_back(p_.mode == FutexWakeMode::wake ? "wake_ns_per_round" : "requeue_ns_per_round",
                          static_cast<double>(call_ns_) / rounds);
    m.values.emplace_back("calls_per_round", static_cast<double>(calls_) / rounds);
    m.values.emplace_back("wakeup_latency_ns",
                          p_.sleepers == 0 ? 0 : static_cast<double>(latency_ns_.load()) / (rounds * p_.sleepers));
    return m;
  }

 private:
  struct Words {
    Word round{0};   // the futex the sleepers wait on: they sleep while it holds their round
    Word target{0};  // requeue: where they are moved
  };

  void sleeper() {
    for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(p_.rounds); ++r) {
      while (words_->round.load(std::memory_order_acquire) == r) table_->wait(words_->round, r);
      latency_ns_.fetch_add(P::now() - round_start_.load());
    }
  }

  void waker() {
    for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(p_.rounds); ++r) {
      // As perf does, start only when every sleeper is asleep (perf sleeps between checks;
      // polling here waits a while between looks, so it does not hog the bucket lock).
      while (table_->waiters_on(words_->round) != p_.sleepers) P::charge(Work::compute, kPollInstructions);
      for (const std::uint64_t queued = P::now(); P::now() - queued < p_.settle_ns;)
        P::charge(Work::compute, kPollInstructions);
      round_start_.store(P::now());
      words_->round.store(r + 1, std::memory_order_release);
      const std::uint64_t start = P::now();
      if (p_.mode == FutexWakeMode::wake) {
        for (int woken = 0; woken < p_.sleepers; ++calls_) woken += table_->wake(words_->round, p_.batch).woken;
      } else {
        // perf requeues with nr_wake 0 onto a second futex, then wakes them there.
        for (int moved = 0; moved < p_.sleepers; ++calls_)
          moved += table_->requeue(words_->round, words_->target, 0, p_.batch, std::nullopt).requeued;
        for (int woken = 0; woken < p_.sleepers;) woken += table_->wake(words_->target, p_.sleepers).woken;
      }
      call_ns_ += P::now() - start;  // the next round begins when all sleep again
    }
  }

  FutexWakeParams p_;
  std::optional<futex::FutexTable<P>> table_;
  Words* words_ = nullptr;
  std::uint64_t call_ns_ = 0;  // the waker's own
  std::uint64_t calls_ = 0;
  std::atomic<std::uint64_t> round_start_{0};  // host bookkeeping, not part of the design
  std::atomic<std::uint64_t> latency_ns_{0};
};

}  // namespace lockstep
