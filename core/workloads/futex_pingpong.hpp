// futex-pingpong: wait/wake round trips over many addresses. T threads form T/2 pairs; in each
// pair a pinger sets a futex word and wakes it, and a ponger, asleep on that word, answers on
// the same word and wakes the pinger back. Each pair cycles through `words` words of its own,
// so the table sees many distinct addresses (many buckets, as a process full of mutexes
// does), not one hot word. futex-hash measures calls that never sleep; this measures the
// sleeping and waking path: queueing under the bucket lock, the wake, the scheduler.
//
// A word's states: idle, ping (the pinger's request), pong (the answer), stop (the pinger's
// window closed). After the answer the pinger sets the word idle again for its next use.
// Every change the other side waits for is followed by a wake, so nothing depends on timing.
// The pinger begins only once its ponger has said it is about to wait and kSettleNs more
// have passed, so the first ping finds the ponger asleep on both platforms, and every trip
// after it sleeps and wakes twice (the woken side runs a wake's latency later, by which time
// the other has gone to sleep). Started together, a simulated pair could instead find each
// answer already there at every wait and never sleep, a regime as stable as the sleeping one
// in a run without noise.
//
// Metrics: round trips per second, per pair (each over its own window) and summed, and the
// distribution of one round trip's time (median, 90th and 99th percentiles over every pair's
// trips; the pinger reads the clock once a trip anyway, for its deadline).
#pragma once

#include <algorithm>
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

struct FutexPingpongParams {
  futex::FutexConfig config;
  std::string design = "custom";      // the name the scenario gave the design
  int threads = 2;                    // even: pinger 2p and ponger 2p+1 form pair p
  int words = 64;                     // futex words per pair, used in turn
  int cpus = 2;                       // thread i runs on CPU i % cpus
  futex::FutexMachine machine;        // what a table is sized for
  std::uint64_t runtime_ns = 20'000;  // each pair's window
  std::uint64_t rounds = 0;           // per pair: stop after this many round trips (0: no limit)
};

template <Platform P, class Backend = futex::FutexTable<P>>
requires futex::FutexBackend<Backend, typename P::template Atomic<std::uint32_t>>
class FutexPingpong {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  using Word = typename P::template Atomic<std::uint32_t>;

  explicit FutexPingpong(const FutexPingpongParams& params)
      : p_(params), done_(pairs(), 0), elapsed_ns_(pairs(), 0), trip_ns_(pairs()) {}
  ~FutexPingpong() {
    for (Word* words : words_) P::deallocate(words, bytes_per_pair());
  }
  FutexPingpong(const FutexPingpong&) = delete;
  FutexPingpong& operator=(const FutexPingpong&) = delete;

  void setup(const SpawnFn& spawn) {
    futex::emplace_backend(futex_, p_.config, p_.machine, p_.threads);
    for (std::size_t pair = 0; pair < pairs(); ++pair) {
      auto* words = static_cast<Word*>(P::allocate(bytes_per_pair(), kCacheLineBytes, 0));
      for (int i = 0; i <= p_.words; ++i) new (&words[i]) Word(kIdle);  // the flag too
      P::label(words, bytes_per_pair(), fmt::format("words_p{}", pair));
      words_.push_back(words);
    }
    for (std::size_t pair = 0; pair < pairs(); ++pair) {
      const int pinger = static_cast<int>(2 * pair);
      spawn(fmt::format("ping{}", pair), pinger % p_.cpus, [this, pair] { ping(pair); });
      spawn(fmt::format("pong{}", pair), (pinger + 1) % p_.cpus, [this, pair] { pong(pair); });
    }
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", p_.design);
    m.labels.emplace_back("futex", futex::describe_backend(*futex_));
    m.values.emplace_back("threads", p_.threads);
    m.values.emplace_back("pairs", static_cast<double>(pairs()));
    m.values.emplace_back("words", p_.words);
    std::uint64_t trips = 0;
    std::uint64_t ns = 0;
    double rate = 0;
    m.per_thread_name = "per_pair_round_trips_per_s";
    for (std::size_t pair = 0; pair < pairs(); ++pair) {
      const double per_s =
          elapsed_ns_[pair] == 0 ? 0 : static_cast<double>(done_[pair]) * 1e9 / static_cast<double>(elapsed_ns_[pair]);
      m.per_thread.push_back(per_s);
      rate += per_s;
      trips += done_[pair];
      ns += elapsed_ns_[pair];
    }
    m.values.emplace_back("round_trips", static_cast<double>(trips));
    m.values.emplace_back("round_trips_per_s", rate);
    m.values.emplace_back("round_trips_per_s_per_pair", rate / static_cast<double>(pairs()));
    m.values.emplace_back("round_trip_ns", trips == 0 ? 0 : static_cast<double>(ns) / static_cast<double>(trips));
    std::vector<std::uint64_t> all;
    for (const std::vector<std::uint64_t>& pair : trip_ns_) all.insert(all.end(), pair.begin(), pair.end());
    if (!all.empty()) {
      std::sort(all.begin(), all.end());
      const auto at = [&all](double q) {
        return static_cast<double>(all[static_cast<std::size_t>(q * static_cast<double>(all.size() - 1))]);
      };
      m.values.emplace_back("round_trip_p50_ns", at(0.5));
      m.values.emplace_back("round_trip_p90_ns", at(0.9));
      m.values.emplace_back("round_trip_p99_ns", at(0.99));
    }
    return m;
  }

 private:
  static constexpr std::uint32_t kIdle = 0;
  static constexpr std::uint32_t kPing = 1;
  static constexpr std::uint32_t kPong = 2;
  static constexpr std::uint32_t kStop = 3;
  // Round-trip times kept per pair, for the percentiles: enough for a stable 99th, and a
  // bound on memory (8 MiB a pair) however long the window.
  static constexpr std::size_t kMaxTripSamples = std::size_t{1} << 20;

  std::size_t pairs() const { return static_cast<std::size_t>(p_.threads / 2); }
  // A pair's words, then its ponger's "about to wait" flag.
  std::size_t bytes_per_pair() const { return sizeof(Word) * (static_cast<std::size_t>(p_.words) + 1); }
  // [guess] Long enough for a FUTEX_WAIT to have put its caller to sleep: a system call
  // costs about 0.13 us on this workplace's hosts, the table's work less (futex-wake settles
  // 100 us for the same reason, perf's own benchmark 100 ms).
  static constexpr std::uint64_t kSettleNs = 10'000;
  int next(int i) const { return i + 1 == p_.words ? 0 : i + 1; }

  void ping(std::size_t pair) {
    Word* words = words_[pair];
    while (words[p_.words].load(std::memory_order_acquire) == 0) P::cpu_relax();
    for (const std::uint64_t settled = P::now() + kSettleNs; P::now() < settled;) P::cpu_relax();
    const std::uint64_t start = P::now();
    const std::uint64_t deadline = start + p_.runtime_ns;
    std::uint64_t done = 0;
    std::vector<std::uint64_t>& trips = trip_ns_[pair];
    std::uint64_t last = start;
    for (int i = 0;; i = next(i)) {
      Word& word = words[i];
      const std::uint64_t now = P::now();
      if (done > 0 && trips.size() < kMaxTripSamples) trips.push_back(now - last);
      last = now;
      if (now >= deadline || (p_.rounds != 0 && done == p_.rounds)) {
        // The ponger sleeps on this word: this is the last thing it waits for.
        word.store(kStop, std::memory_order_release);
        futex_->wake(word, 1);
        break;
      }
      word.store(kPing, std::memory_order_release);
      futex_->wake(word, 1);
      for (std::uint32_t v = 0; (v = word.load(std::memory_order_acquire)) != kPong;) futex_->wait(word, v);
      // The ponger is on the next word by now; it reads this one again only after we set it.
      word.store(kIdle, std::memory_order_relaxed);
      ++done;
    }
    elapsed_ns_[pair] = P::now() - start;
    done_[pair] = done;
  }

  void pong(std::size_t pair) {
    Word* words = words_[pair];
    words[p_.words].store(1, std::memory_order_release);  // about to wait
    for (int i = 0;; i = next(i)) {
      Word& word = words[i];
      std::uint32_t v = 0;
      // With one word it may still hold our last pong, until the pinger sets it idle.
      while ((v = word.load(std::memory_order_acquire)) != kPing && v != kStop) futex_->wait(word, v);
      if (v == kStop) return;
      word.store(kPong, std::memory_order_release);
      futex_->wake(word, 1);
    }
  }

  FutexPingpongParams p_;
  std::optional<Backend> futex_;
  std::vector<Word*> words_;
  std::vector<std::uint64_t> done_;                  // round trips, per pair
  std::vector<std::uint64_t> elapsed_ns_;            // each pair's window as its pinger measured it
  std::vector<std::vector<std::uint64_t>> trip_ns_;  // each pair's round-trip times
};

}  // namespace lockstep
