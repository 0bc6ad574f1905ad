#include "native/probes/ccbench_probe.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "native/native_platform.hpp"
#include "native/probes/chase_buffer.hpp"
#include "native/probes/pinned_threads.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace lockstep::native::probes {

namespace {

constexpr std::size_t kLineBytes = 64;
using Word = std::atomic<std::uint64_t>;
static_assert(Word::is_always_lock_free);

struct alignas(kLineBytes) TurnLine {
  Word turn{0};
  std::atomic<bool> abandoned{false};  // a thread failed: the others stop waiting
};

// Spins on the turn word; after a while yields, so that threads sharing a CPU (holders named
// twice on a small host) still make progress. False when a thread failed.
bool wait_for(const TurnLine& t, std::uint64_t n) {
  for (std::uint64_t spins = 0; t.turn.load(std::memory_order_acquire) != n; ++spins) {
    if (t.abandoned.load(std::memory_order_relaxed)) return false;
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
    if (spins > 100000) std::this_thread::yield();
  }
  return true;
}

// Every line back to memory, holding 0: no cache has it when its repetition begins.
void flush_lines(char* base, std::uint32_t lines) {
  for (std::uint32_t r = 0; r < lines; ++r) {
    auto* line = reinterpret_cast<Word*>(base + static_cast<std::uint64_t>(r) * kCcbenchLineSpacing);
    line->store(0, std::memory_order_relaxed);
#if defined(__x86_64__) || defined(__i386__)
    _mm_clflush(line);
#endif
  }
#if defined(__x86_64__) || defined(__i386__)
  _mm_mfence();
#endif
}

struct Pass {
  const CcbenchProbeOptions& options;
  const Clock& clock;
  double empty_ticks;
  char* base;
};

// One measuring CPU's repetitions: the samples in nanoseconds.
std::vector<double> measure_from(const Pass& p, int cpu) {
  const CcbenchProbeOptions& o = p.options;
  flush_lines(p.base, o.repetitions);
  TurnLine turn;
  const std::uint64_t stride = o.holders.size() + 1;
  const auto line = [&p](std::uint32_t r) -> Word& {
    return *reinterpret_cast<Word*>(p.base + static_cast<std::uint64_t>(r) * kCcbenchLineSpacing);
  };
  std::vector<double> samples;
  samples.reserve(o.repetitions);
  std::vector<PinnedBody> bodies;
  for (std::size_t i = 0; i < o.holders.size(); ++i) {
    bodies.push_back({o.holders[i], [&, i] {
                        for (std::uint32_t r = 0; r < o.repetitions; ++r) {
                          if (!wait_for(turn, r * stride + i)) return;
                          ccbench_hold(line(r), o.state, i);
                          turn.turn.store(r * stride + i + 1, std::memory_order_release);
                        }
                      }});
  }
  bodies.push_back({cpu, [&] {
                      try {
                        for (std::uint32_t r = 0; r < o.repetitions; ++r) {
                          if (!wait_for(turn, r * stride + stride - 1)) return;
                          const std::uint64_t t0 = p.clock.start();
                          ccbench_operate(line(r), o.state, o.op);
                          // A store is done when it leaves the store buffer: the fence keeps its
                          // transfer inside the interval, as the simulated store's is.
                          if (o.op == CcOp::store) std::atomic_thread_fence(std::memory_order_seq_cst);
                          const std::uint64_t t1 = p.clock.stop();
                          samples.push_back(std::max(0.0, p.clock.ns(static_cast<double>(t1 - t0) - p.empty_ticks)));
                          turn.turn.store((r + 1) * stride, std::memory_order_release);
                        }
                      } catch (...) {
                        turn.abandoned.store(true);
                        throw;
                      }
                    }});
  run_pinned_group(bodies);
  return samples;
}

void check(const CcbenchProbeOptions& o) {
  if (o.cpus.empty()) throw std::invalid_argument("ccbench probe: no CPU to time the operation from");
  if (o.repetitions == 0 || o.repetitions > kMaxCcbenchRepetitions)
    throw std::invalid_argument(fmt::format("ccbench probe: repetitions must be 1 to {}", kMaxCcbenchRepetitions));
  const std::size_t holders = o.holders.size();
  switch (o.state) {
    case LineState::modified:
    case LineState::exclusive:
      if (holders != 1)
        throw std::invalid_argument(fmt::format("ccbench probe: a line {} is held by one CPU", name_of(o.state)));
      break;
    case LineState::shared:
    case LineState::owned:
      if (holders < 2)
        throw std::invalid_argument(
            fmt::format("ccbench probe: a line {} takes two holders at least", name_of(o.state)));
      break;
    case LineState::invalid:
      break;
  }
  for (const int cpu : o.cpus)
    if (std::find(o.holders.begin(), o.holders.end(), cpu) != o.holders.end())
      throw std::invalid_argument(
          fmt::format("ccbench probe: CPU {} holds the line; the operation is timed from another", cpu));
}

}  // namespace

CcbenchProbeResult ccbench_probe(const CcbenchProbeOptions& options) {
  check(options);
  const Deadline deadline(options.limits.seconds);
  CcbenchProbeResult result;
  const Clock clock(options.clock);
  result.clock = clock.info();
  const double empty_ticks = clock.empty_interval_ticks();
  result.empty_interval_ns = clock.ns(empty_ticks);
  result.node = options.node >= 0
                    ? options.node
                    : node_of_cpu(options.holders.empty() ? options.cpus.front() : options.holders.front());
  const bool huge = transparent_huge_page_mode() == "always" || transparent_huge_page_mode() == "madvise";
  const ChaseBuffer buffer(static_cast<std::uint64_t>(options.repetitions) * kCcbenchLineSpacing, result.node, huge);
  if (!huge) result.notes.push_back("no transparent huge pages: an operation may also pay a TLB miss");
#if !defined(__x86_64__) && !defined(__i386__)
  result.notes.push_back("no cache flush on this architecture: a line may start in a cache rather than memory");
#endif
  const Pass pass{options, clock, empty_ticks, buffer.data()};
  for (const int cpu : options.cpus) {
    if (options.limits.stopped()) {
      result.interrupted = true;
      result.notes.push_back(fmt::format("interrupted before CPU {}", cpu));
      break;
    }
    std::vector<double> samples = measure_from(pass, cpu);
    CcbenchProbeRow row;
    row.cpu = cpu;
    row.min_ns = *std::min_element(samples.begin(), samples.end());
    row.max_ns = *std::max_element(samples.begin(), samples.end());
    row.latency = measure::summarize(std::move(samples));
    result.rows.push_back(row);
  }
  result.elapsed_s = deadline.elapsed_s();
  return result;
}

}  // namespace lockstep::native::probes
