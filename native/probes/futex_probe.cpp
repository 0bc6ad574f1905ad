#include "native/probes/futex_probe.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "native/kernel_futex.hpp"
#include "native/probes/pinned_threads.hpp"
#include "native/probes/thread_state.hpp"
#include "native/runner.hpp"

namespace lockstep::native::probes {

namespace {

using Word = KernelFutex::Word;

// Samples every figure gets even when its share of the budget is spent.
constexpr std::size_t kMinSamples = 16;

struct Context {
  const Clock& clock;
  double overhead_ticks;
  const ProbeLimits& limits;
};

bool enough(const Context& c, std::size_t samples, Deadline::Clock::time_point part_end) {
  return samples >= kMinSamples && (Deadline::Clock::now() >= part_end || c.limits.stopped());
}

// (a): each call timed on its own; a system call is long beside the clock's cost.
FutexFigure eagain_cost(const Context& c, Deadline::Clock::time_point part_end) {
  KernelFutex futex;
  Word word{0};
  std::vector<double> samples_ns;
  do {
    const std::uint64_t t0 = c.clock.start();
    const futex::FutexError e = futex.wait(word, 1);
    const std::uint64_t t1 = c.clock.stop();
    if (e != futex::FutexError::eagain)
      throw std::logic_error("FUTEX_WAIT on a word that differs did not fail with EAGAIN");
    samples_ns.push_back(c.clock.ns(static_cast<double>(t1 - t0) - c.overhead_ticks));
  } while (!enough(c, samples_ns.size(), part_end));
  return FutexFigure{true, measure::summarize(std::move(samples_ns)), 0, {}};
}

// How a ping-pong's threads sleep and wake: the kernel's futex, or std::atomic::wait.
struct FutexSignal {
  // Woken threads: 0 when the partner was not asleep.
  static int wake(Word& w) { return KernelFutex{}.wake(w, 1).woken; }
  static void wait_while_zero(Word& w) {
    while (w.load(std::memory_order_acquire) == 0) KernelFutex{}.wait(w, 0);
  }
};
struct AtomicWaitSignal {
  static int wake(Word& w) {
    w.notify_one();
    return -1;  // notify_one does not say whether anyone slept
  }
  static void wait_while_zero(Word& w) { w.wait(0, std::memory_order_acquire); }
};

// Two words on lines of their own: each thread sleeps on its own and raises the other's.
struct alignas(64) PaddedWord {
  Word word{0};
};

struct PingPongResult {
  std::vector<double> half_round_trip_ns;
  std::uint64_t not_asleep = 0;
};

// (c): two threads on `cpu`: `a` raises b's word, wakes it, sleeps until b raises its own; b
// answers, so every handoff is a switch. The waker times each round trip; a stop sets
// `done` and raises b's word once more.
PingPongResult ping_pong(const Context& c, int cpu, Deadline::Clock::time_point part_end) {
  using Signal = FutexSignal;
  PaddedWord to_a;
  PaddedWord to_b;
  std::atomic<bool> done{false};
  PingPongResult out;
  std::uint64_t b_not_asleep = 0;
  auto raise = [](Word& w) {
    w.store(1, std::memory_order_release);
    return Signal::wake(w);
  };
  auto a = [&] {
    do {
      const std::uint64_t t0 = c.clock.start();
      const int woken = raise(to_b.word);
      Signal::wait_while_zero(to_a.word);
      to_a.word.store(0, std::memory_order_relaxed);
      const std::uint64_t t1 = c.clock.stop();
      out.half_round_trip_ns.push_back(c.clock.ns(static_cast<double>(t1 - t0)) / 2);
      if (woken == 0) ++out.not_asleep;
    } while (!enough(c, out.half_round_trip_ns.size(), part_end));
    done.store(true, std::memory_order_relaxed);
    raise(to_b.word);
  };
  auto b = [&] {
    for (;;) {
      Signal::wait_while_zero(to_b.word);
      to_b.word.store(0, std::memory_order_relaxed);
      if (done.load(std::memory_order_relaxed)) return;
      if (raise(to_a.word) == 0) ++b_not_asleep;
    }
  };
  run_pinned_pair(cpu, a, cpu, b);
  out.not_asleep += b_not_asleep;
  return out;
}

// How long the waker waits for its partner to be asleep before it gives the round up: entering
// FUTEX_WAIT takes microseconds, so 10 ms means the partner was descheduled [guess].
constexpr auto kAsleepWait = std::chrono::milliseconds(10);
// Once the partner is asleep its CPU is left this long to go idle, so that the figure is the
// wakeup of an idle CPU and not of one still on its way out of schedule() [guess: idle entry
// takes microseconds].
constexpr auto kSettle = std::chrono::microseconds(20);

// A clock that every CPU reads alike (CLOCK_MONOTONIC is one system-wide clock; the TSCs of
// two CPUs need not agree), for the one time a probe compares readings of two threads.
std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void spin_for(std::chrono::microseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// True once `tid` is asleep ('S') and its CPU has had kSettle to go idle; false when it was
// not asleep within kAsleepWait; nothing when the kernel does not say (no /proc).
std::optional<bool> settle_asleep(int tid) {
  const auto give_up = std::chrono::steady_clock::now() + kAsleepWait;
  for (;;) {
    const std::optional<char> state = thread_state(tid);
    if (!state) return std::nullopt;
    if (*state == 'S') break;
    if (std::chrono::steady_clock::now() >= give_up) return false;
  }
  spin_for(kSettle);
  return thread_state(tid) == 'S';
}

struct OneWayResult {
  std::vector<double> wake_to_running_ns;
  std::vector<double> wake_call_ns;  // waker-side calls that woke a sleeper
  std::uint64_t not_asleep = 0;      // rounds not timed: the partner was not asleep
  bool state_unknown = false;        // the kernel did not say whether the partner slept
};

// (b), (d): one wakeup at a time. `a` waits (untimed) until b sleeps in its wait and its CPU
// has gone idle, reads the clock, raises b's word and wakes it; b reads the clock the
// moment its wait returns and answers with a plain store that `a` spins on. A sample is
// b's reading less a's: the waker's store to the sleeper running, whatever the waker's own
// call still does meanwhile. Timing a round trip instead (each side sleeping until the
// other wakes it) measures no wakeup where a wake call is slower than a wakeup (a VM's IPI
// exit): the partner answers before the waker has gone to sleep.
template <class Signal>
OneWayResult one_way_wakeups(const Context& c, int cpu_a, int cpu_b, Deadline::Clock::time_point part_end) {
  PaddedWord to_a;
  PaddedWord to_b;
  std::atomic<int> b_tid{0};
  std::atomic<bool> done{false};
  alignas(64) std::atomic<std::int64_t> b_running_ns{0};
  OneWayResult out;
  auto a = [&] {
    while (b_tid.load(std::memory_order_acquire) == 0) {
    }
    do {
      const std::optional<bool> asleep = settle_asleep(b_tid.load(std::memory_order_relaxed));
      if (!asleep) out.state_unknown = true;
      const std::int64_t t0 = monotonic_ns();
      to_b.word.store(1, std::memory_order_release);
      const std::uint64_t w0 = c.clock.start();
      const int woken = Signal::wake(to_b.word);
      const std::uint64_t w1 = c.clock.stop();
      while (to_a.word.load(std::memory_order_acquire) == 0) {
      }
      to_a.word.store(0, std::memory_order_relaxed);
      if (asleep == false || woken == 0) {
        ++out.not_asleep;
        continue;
      }
      out.wake_to_running_ns.push_back(static_cast<double>(b_running_ns.load(std::memory_order_relaxed) - t0));
      if (woken > 0) out.wake_call_ns.push_back(c.clock.ns(static_cast<double>(w1 - w0) - c.overhead_ticks));
    } while (!enough(c, out.wake_to_running_ns.size() + out.not_asleep, part_end));
    done.store(true, std::memory_order_relaxed);
    to_b.word.store(1, std::memory_order_release);
    Signal::wake(to_b.word);
  };
  auto b = [&] {
    b_tid.store(this_thread_tid(), std::memory_order_release);
    for (;;) {
      Signal::wait_while_zero(to_b.word);
      const std::int64_t running = monotonic_ns();
      to_b.word.store(0, std::memory_order_relaxed);
      if (done.load(std::memory_order_relaxed)) return;
      b_running_ns.store(running, std::memory_order_relaxed);
      to_a.word.store(1, std::memory_order_release);  // a spins on it: no wake
    }
  };
  run_pinned_pair(cpu_a, a, cpu_b, b);
  return out;
}

FutexFigure not_measured(std::string why) { return FutexFigure{false, {}, 0, std::move(why)}; }

FutexFigure switch_figure(const PingPongResult& r) {
  return FutexFigure{true, measure::summarize(r.half_round_trip_ns), r.not_asleep, {}};
}

template <class Signal>
FutexFigure wakeup_figure(const OneWayResult& r) {
  if (r.wake_to_running_ns.empty()) return not_measured("the partner was never asleep when woken");
  FutexFigure f{true, measure::summarize(r.wake_to_running_ns), r.not_asleep, {}};
  if (r.state_unknown)
    f.note = std::is_same_v<Signal, AtomicWaitSignal>
                 ? "the kernel did not say whether the partner slept (no /proc): not every sample need be a wakeup"
                 : "the kernel did not say whether the partner slept (no /proc): a sample is a round whose FUTEX_WAKE "
                   "woke it";
  else if constexpr (std::is_same_v<Signal, AtomicWaitSignal>)
    f.note = "libstdc++ spins briefly before it sleeps in a futex; each timed round waited until the partner slept";
  return f;
}

double clamped(double v, const char* what, std::vector<std::string>& notes) {
  if (v >= 0) return v;
  notes.push_back(fmt::format("{} came out negative ({:.0f} ns): 0", what, v));
  return 0;
}

void run_futex_probe(const FutexProbeOptions& options, const Deadline& deadline, FutexProbeResult& result) {
  const Clock clock(options.clock);
  result.clock = clock.info();
  const Context c{clock, clock.empty_interval_ticks(), options.limits};
  result.clock_overhead_ns = clock.ns(c.overhead_ticks);
  const bool two_cpus = result.cpu_a != result.cpu_b;
  std::size_t parts_left = two_cpus ? 4 : 2;
  auto next = [&] { return deadline.next_part_end(parts_left--); };
  result.syscall_eagain = eagain_cost(c, next());
  if (two_cpus && !options.limits.stopped()) {
    const OneWayResult r = one_way_wakeups<FutexSignal>(c, result.cpu_a, result.cpu_b, next());
    result.wake_to_running = wakeup_figure<FutexSignal>(r);
    result.wake_call = r.wake_call_ns.empty() ? not_measured("the partner was never asleep when woken")
                                              : FutexFigure{true, measure::summarize(r.wake_call_ns), 0, {}};
  }
  if (!options.limits.stopped()) result.context_switch = switch_figure(ping_pong(c, result.cpu_a, next()));
  if (two_cpus && !options.limits.stopped())
    result.atomic_wait =
        wakeup_figure<AtomicWaitSignal>(one_way_wakeups<AtomicWaitSignal>(c, result.cpu_a, result.cpu_b, next()));
  if (!two_cpus) {
    const std::string why = fmt::format("one allowed CPU ({}): no second CPU to wake a thread on", result.cpu_a);
    result.wake_to_running = result.wake_call = result.atomic_wait = not_measured(why);
    result.notes.push_back(why);
  }
  result.interrupted = options.limits.stopped();
  for (FutexFigure* f : {&result.wake_call, &result.wake_to_running, &result.context_switch, &result.atomic_wait})
    if (!f->measured && f->note.empty()) f->note = "interrupted before it ran";
}

}  // namespace

OsCostEstimate estimate_os_costs(const FutexProbeResult& r) {
  OsCostEstimate e;
  if (!r.syscall_eagain.measured) {
    e.notes.emplace_back("no system call cost measured: no estimate");
    return e;
  }
  const double eagain = r.syscall_eagain.latency.median_ns;
  e.syscall_entry_ns = e.syscall_exit_ns = eagain / 2;
  if (r.context_switch.measured)
    e.context_switch_ns = clamped(r.context_switch.latency.median_ns - 2 * eagain, "context_switch_ns", e.notes);
  else
    e.notes.emplace_back("no context switch measured: context_switch_ns is 0 and wake_ns includes a switch");
  if (!r.wake_call.measured) {
    e.notes.emplace_back("no wake call measured (one CPU): unpark_ns and wake_ns not estimated");
    return e;
  }
  const double wake_call = r.wake_call.latency.median_ns;
  e.unpark_ns = clamped(wake_call - eagain, "unpark_ns", e.notes);
  if (r.wake_to_running.measured)
    e.wake_ns = clamped(r.wake_to_running.latency.median_ns - wake_call - e.context_switch_ns, "wake_ns", e.notes);
  return e;
}

FutexProbeResult futex_probe(const FutexProbeOptions& options) {
  const Deadline deadline(options.limits.seconds);
  FutexProbeResult result;
  result.seconds = options.limits.seconds;
  const std::vector<int> cpus = allowed_cpus();
  result.cpu_a = cpus.front();
  result.cpu_b = cpus.size() > 1 ? cpus[1] : cpus.front();
  // (a) on a pinned thread of its own too, so the caller's affinity is left alone.
  run_pinned(result.cpu_a, [&] { run_futex_probe(options, deadline, result); });
  result.estimate = estimate_os_costs(result);
  result.elapsed_s = deadline.elapsed_s();
  return result;
}

}  // namespace lockstep::native::probes
