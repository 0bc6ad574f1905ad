#include "native/litmus_harness.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "native/fileio/interrupt.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "native/spin_barrier.hpp"

namespace lockstep::native {

namespace {

using Clock = std::chrono::steady_clock;

// How often the first thread reads the clock against the time budget, in runs: a run takes
// microseconds, so the budget is overshot by far less than a millisecond.
constexpr std::uint64_t kClockEveryRuns = 16;
// How often the main thread looks at the runs' progress, Ctrl-C and the watchdog.
constexpr auto kPollInterval = std::chrono::milliseconds(5);
// How long the main thread waits, once it abandoned a stuck run, for the threads that were
// not stuck to leave the barrier and end. [guess] they leave within microseconds.
constexpr auto kAbandonGrace = std::chrono::milliseconds(500);

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// fully specified, so every host draws the same skews from the same seed.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct alignas(kCacheLineBytes) PerThread {
  std::atomic<std::uint64_t> done{0};  // bodies finished
  std::atomic<bool> exited{false};
};

// Everything the threads touch: owned jointly by them and the main thread, so that threads
// abandoned by the watchdog never touch freed memory.
struct Shared {
  Shared(std::vector<LitmusThread> t, std::function<void()> after, const LitmusLimits& l)
      : threads(std::move(t)), after_run(std::move(after)), limits(l), barrier(threads.size()), per(threads.size()) {}

  std::vector<LitmusThread> threads;
  std::function<void()> after_run;
  LitmusLimits limits;
  std::vector<CpuId> host_cpus;
  SpinBarrier barrier;
  std::deque<PerThread> per;  // deque: PerThread holds atomics, which do not move
  alignas(kCacheLineBytes) std::atomic<std::uint64_t> runs{0};
  std::atomic<bool> stop{false};            // set by the first thread before a start barrier
  std::atomic<bool> stop_requested{false};  // set by the main thread (Ctrl-C)
  std::atomic<bool> abandon{false};         // set by the main thread (watchdog)
  std::atomic<std::int64_t> start_ns{0};    // the first run's start on the first thread (since the epoch)
  std::atomic<std::int64_t> elapsed_ns{0};

  static std::int64_t ns(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  }

  // Held by the first thread while it hands a run over, and by the main thread while it
  // abandons the runs: once the main thread gave up, no after_run starts, so it can read
  // what after_run wrote even with a stuck thread that might yet come back.
  std::mutex handover;

  // On the first thread, between runs: hand the run over, then decide whether another starts.
  // False when the runs were abandoned.
  bool finish_run(std::uint64_t completed) {
    const std::lock_guard guard(handover);
    if (abandon.load(std::memory_order_relaxed)) return false;
    after_run();
    runs.store(completed, std::memory_order_release);
    bool enough = limits.max_runs != 0 && completed >= limits.max_runs;
    enough = enough || stop_requested.load(std::memory_order_relaxed);
    if (enough || completed % kClockEveryRuns == 0) {
      const std::int64_t spent_ns = ns(Clock::now()) - start_ns.load(std::memory_order_relaxed);
      enough = enough || static_cast<double>(spent_ns) * 1e-9 >= limits.seconds;
      if (enough) elapsed_ns.store(spent_ns);
    }
    if (enough) stop.store(true, std::memory_order_relaxed);  // the start barrier publishes it
    return true;
  }
};

void pin(CpuId host_cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(host_cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void thread_main(const std::shared_ptr<Shared>& shared, std::size_t i) {
  Shared& s = *shared;
  pin(s.host_cpus[i]);
  std::uint64_t rng = s.limits.seed ^ (0xd1b54a32d192ed03ULL * (i + 1));  // one stream per thread
  const std::uint64_t skews = std::uint64_t{s.limits.max_skew} + 1;
  bool sense = false;
  for (std::uint64_t run = 0;; ++run) {
    if (!s.barrier.arrive_and_wait(sense, s.abandon)) break;  // the start of run `run`
    if (s.stop.load(std::memory_order_relaxed)) break;
    if (i == 0 && run == 0) s.start_ns.store(Shared::ns(Clock::now()), std::memory_order_relaxed);
    if (s.threads[i].prepare) s.threads[i].prepare();
    for (std::uint64_t k = splitmix64(rng) % skews; k > 0; --k) NativePlatform::cpu_relax();
    s.threads[i].body();
    s.per[i].done.store(run + 1, std::memory_order_relaxed);
    if (!s.barrier.arrive_and_wait(sense, s.abandon)) break;  // its end
    if (i == 0 && !s.finish_run(run + 1)) break;
  }
  s.per[i].exited.store(true, std::memory_order_release);
}

bool all_exited(const Shared& s) {
  for (const PerThread& p : s.per)
    if (!p.exited.load(std::memory_order_acquire)) return false;
  return true;
}

// The watchdog fired: the threads that did not finish the run in progress are named, the
// others leave the barrier and are joined; the stuck ones are detached where they are.
void abandon(Shared& s, std::vector<std::thread>& threads, LitmusRunStats& stats) {
  const std::uint64_t in_progress = s.runs.load(std::memory_order_acquire) + 1;
  for (std::size_t i = 0; i < s.threads.size(); ++i)
    if (s.per[i].done.load(std::memory_order_relaxed) < in_progress) stats.stuck.push_back(s.threads[i].name);
  {
    const std::lock_guard guard(s.handover);
    s.abandon.store(true);
  }
  const Clock::time_point give_up = Clock::now() + kAbandonGrace;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    while (!s.per[i].exited.load(std::memory_order_acquire) && Clock::now() < give_up)
      std::this_thread::sleep_for(kPollInterval);
    if (s.per[i].exited.load(std::memory_order_acquire)) {
      threads[i].join();
    } else {
      threads[i].detach();
    }
  }
}

}  // namespace

LitmusRunStats run_litmus(std::vector<LitmusThread> threads, std::function<void()> after_run,
                          const LitmusLimits& limits) {
  if (threads.empty()) throw std::invalid_argument("a litmus run needs at least one thread");
  auto shared = std::make_shared<Shared>(std::move(threads), std::move(after_run), limits);
  Shared& s = *shared;
  const std::vector<CpuId> cpus = allowed_cpus();
  for (const LitmusThread& t : s.threads) s.host_cpus.push_back(cpus[static_cast<std::size_t>(t.cpu) % cpus.size()]);

  LitmusRunStats stats;
  stats.host_cpus = s.host_cpus;
  const fileio::InterruptGuard interrupt;
  std::vector<std::thread> workers;
  workers.reserve(s.threads.size());
  for (std::size_t i = 0; i < s.threads.size(); ++i) workers.emplace_back([shared, i] { thread_main(shared, i); });

  // The main thread only watches: it sleeps between looks, so it takes no CPU from the runs.
  std::uint64_t seen = 0;
  Clock::time_point last_progress = Clock::now();
  while (!all_exited(s)) {
    std::this_thread::sleep_for(kPollInterval);
    if (fileio::interrupted() && !stats.interrupted) {
      stats.interrupted = true;
      s.stop_requested.store(true, std::memory_order_relaxed);
    }
    const std::uint64_t now_runs = s.runs.load(std::memory_order_acquire);
    if (now_runs != seen) {
      seen = now_runs;
      last_progress = Clock::now();
    } else if (std::chrono::duration<double>(Clock::now() - last_progress).count() > limits.watchdog_s) {
      abandon(s, workers, stats);
      break;
    }
  }
  if (stats.stuck.empty())
    for (std::thread& t : workers) t.join();
  stats.runs = s.runs.load(std::memory_order_acquire);
  const std::int64_t start_ns = s.start_ns.load();
  const std::int64_t end_ns = stats.stuck.empty() ? start_ns + s.elapsed_ns.load() : Shared::ns(last_progress);
  stats.elapsed_s = start_ns == 0 ? 0 : static_cast<double>(end_ns - start_ns) * 1e-9;
  return stats;
}

}  // namespace lockstep::native
