#include "native/probes/c2c_probe.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/workloads/counter_sharing.hpp"
#include "measure/latency_summary.hpp"
#include "native/native_platform.hpp"
#include "native/probes/pinned_threads.hpp"
#include "native/runner.hpp"

namespace lockstep::native::probes {

namespace {

constexpr std::uint64_t kMinBatches = 3;  // a median of three at least, however short the share
constexpr std::uint64_t kLineBytes = 64;

// The token alone on its line, so nothing else the threads touch moves with it.
struct alignas(kLineBytes) TokenLine {
  std::atomic<std::uint64_t> token{0};
};
static_assert(sizeof(TokenLine) == kLineBytes && alignof(TokenLine) == kLineBytes);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

// Written by `ping` when it is done; `pong`'s failing CAS reads it and returns.
constexpr std::uint64_t kDone = std::numeric_limits<std::uint64_t>::max();

// Turns `from` into `from + 1`, retrying the CAS as the core-to-core-latency tool does,
// without a pause: a pause (tens to a hundred cycles) would add to the latency measured.
// False when the partner wrote kDone.
bool pass(std::atomic<std::uint64_t>& token, std::uint64_t from) {
  std::uint64_t expected = from;
  while (!token.compare_exchange_weak(expected, from + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
    if (expected == kDone) return false;
    expected = from;
  }
  return true;
}

// The answering side of a ping-pong: turns each odd value into the next even one until the
// pinging side writes kDone.
void pong(std::atomic<std::uint64_t>& token) {
  for (std::uint64_t round = 0; pass(token, 2 * round + 1); ++round) {
  }
}

struct PairContext {
  const Clock& clock;
  const C2cProbeOptions& options;
};

// One pair: `ping` on `a` turns even values odd, `pong` on `b` turns them even again; ping
// times batches of round trips until `part_end`. Returns the one-way latencies, one per batch.
std::vector<double> ping_pong(const PairContext& c, int a, int b, Deadline::Clock::time_point part_end) {
  const auto line = std::make_unique<TokenLine>();
  std::atomic<std::uint64_t>& token = line->token;
  std::vector<double> one_way_ns;
  const auto rounds = static_cast<std::uint64_t>(c.options.rounds_per_batch);
  auto ping = [&] {
    std::uint64_t round = 0;
    for (; round < static_cast<std::uint64_t>(c.options.warmup_rounds); ++round) pass(token, 2 * round);
    for (;;) {
      const std::uint64_t t0 = c.clock.start();
      for (std::uint64_t r = 0; r < rounds; ++r, ++round) pass(token, 2 * round);
      const std::uint64_t t1 = c.clock.stop();
      one_way_ns.push_back(c.clock.ns(static_cast<double>(t1 - t0)) / (2.0 * static_cast<double>(rounds)));
      if (one_way_ns.size() >= kMinBatches && (Deadline::Clock::now() >= part_end || c.options.limits.stopped())) break;
    }
    // Let pong's last answer land, then tell it to stop.
    while (token.load(std::memory_order_acquire) != 2 * round) {
    }
    token.store(kDone, std::memory_order_release);
  };
  run_pinned_pair(a, ping, b, [&token] { pong(token); });
  return one_way_ns;
}

// One series of round trips, each timed on its own: the interquartile range of their halves.
double series_iqr_ns(const Clock& clock, int a, int b) {
  constexpr std::uint64_t kWarmup = 1000;
  constexpr std::uint64_t kRounds = 1000;
  const auto line = std::make_unique<TokenLine>();
  std::atomic<std::uint64_t>& token = line->token;
  std::vector<double> halves;
  halves.reserve(kRounds);
  auto ping = [&] {
    for (std::uint64_t round = 0; round < kWarmup + kRounds; ++round) {
      const std::uint64_t t0 = clock.start();
      pass(token, 2 * round);
      while (token.load(std::memory_order_acquire) != 2 * round + 2) {
      }
      const std::uint64_t t1 = clock.stop();
      if (round >= kWarmup) halves.push_back(clock.ns(static_cast<double>(t1 - t0)) / 2);
    }
    token.store(kDone, std::memory_order_release);
  };
  run_pinned_pair(a, ping, b, [&token] { pong(token); });
  std::sort(halves.begin(), halves.end());
  return measure::percentile(halves, 0.75) - measure::percentile(halves, 0.25);
}

// The pair's ping-pong with every round trip timed on its own: the interquartile range of the
// halves, the least of 5 series of 1000 round trips after 1000 untimed [guess: some
// milliseconds]. The clock's own cost is the same each time, so it drops out of the range;
// other work on the host's cores only widens it (this workplace's VM measured 3.9 ns in one
// series of 4000 and 10 ns in the next), so the quietest series is the nearest to the
// transfers' own spread.
double one_way_iqr_ns(const Clock& clock, int a, int b) {
  constexpr int kSeries = 5;
  double least = std::numeric_limits<double>::infinity();
  for (int s = 0; s < kSeries; ++s) least = std::min(least, series_iqr_ns(clock, a, b));
  return least;
}

// A pair's figure from its batches, in the order they were timed: the least of the medians
// of kParts consecutive parts (the median of all when there are too few for that). Other
// work on the host only slows a ping-pong, and comes in spells: one calibration here
// measured 81 ns one way where the next minutes' read 66-67, enough to put the transfer's
// request leg at its floor. A spell shorter than a part leaves the other parts' medians.
double least_part_median(const std::vector<double>& batches) {
  constexpr std::size_t kParts = 5;
  constexpr std::size_t kLeastPerPart = 3;  // a median of three at least
  if (batches.size() < kParts * kLeastPerPart) return measure::summarize(batches).median_ns;
  double least = std::numeric_limits<double>::infinity();
  const std::size_t per_part = batches.size() / kParts;
  for (std::size_t part = 0; part < kParts; ++part) {
    const auto first = batches.begin() + static_cast<std::ptrdiff_t>(part * per_part);
    const auto last = part + 1 == kParts ? batches.end() : first + static_cast<std::ptrdiff_t>(per_part);
    least = std::min(least, measure::summarize(std::vector<double>(first, last)).median_ns);
  }
  return least;
}

// Batches of dependent operations on one CPU, timed: the median ns per operation. `op` runs
// `count` operations.
template <typename Op>
double per_op_ns(const Clock& clock, Op op) {
  constexpr std::uint64_t kOps = 4096;  // [guess] some microseconds a batch: the clock's cost below 1%
  constexpr int kBatches = 31;
  op(kOps);  // warm the line and the core's frequency
  std::vector<double> samples;
  for (int b = 0; b < kBatches; ++b) {
    const std::uint64_t t0 = clock.start();
    op(kOps);
    const std::uint64_t t1 = clock.stop();
    samples.push_back(clock.ns(static_cast<double>(t1 - t0)) / static_cast<double>(kOps));
  }
  return measure::summarize(samples).median_ns;
}

// A locked fetch_add on a line of one's own: each adds what the last returned (a dependent
// chain, so no two overlap), as a contended counter's owner does between transfers.
double own_line_rmw_ns(const Clock& clock) {
  TokenLine line;
  return per_op_ns(clock, [&line](std::uint64_t n) {
    std::uint64_t v = 1;
    for (std::uint64_t i = 0; i < n; ++i) v = line.token.fetch_add(v | 1, std::memory_order_seq_cst) & 1;
  });
}

// One spin hint (x86 `pause`, ARM `yield`: what NativePlatform::cpu_relax issues): back to
// back, as a spin loop issues them.
double pause_ns(const Clock& clock) {
  return per_op_ns(clock, [](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) NativePlatform::cpu_relax();
  });
}

// A seq_cst fence between dependent loads of one's own line, less the loads alone.
double fence_ns(const Clock& clock) {
  TokenLine line;
  std::atomic<std::uint64_t> sink{0};
  const double loads = per_op_ns(clock, [&](std::uint64_t n) {
    std::uint64_t v = 0;
    for (std::uint64_t i = 0; i < n; ++i) v += line.token.load(std::memory_order_relaxed);
    sink.store(v, std::memory_order_relaxed);
  });
  const double fenced = per_op_ns(clock, [&](std::uint64_t n) {
    std::uint64_t v = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      v += line.token.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    sink.store(v, std::memory_order_relaxed);
  });
  return std::max(0.0, fenced - loads);
}

// Two CPUs add to one counter: how many adds, on average, one CPU makes in a row before the
// line moves (counter-sharing's adds_per_handover, core/workloads/counter_sharing.hpp, with
// the probe's pinning). The median of 5 runs of 100,000 adds each [guess: about 5 ms a run].
double adds_per_handover(int a, int b) {
  constexpr std::uint64_t kAdds = 100'000;
  constexpr int kRuns = 5;
  std::vector<double> samples;
  for (int run = 0; run < kRuns; ++run) {
    const auto line = std::make_unique<TokenLine>();
    std::atomic<int> ready{0};
    std::uint64_t runs[2] = {0, 0};
    const auto adder = [&](int side) {
      return [&, side] {
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        // Stored once at the end: the two slots share a line, which the adds would
        // otherwise contend for too.
        runs[side] = add_counting_runs(line->token, kAdds);
      };
    };
    run_pinned_pair(a, adder(0), b, adder(1));
    samples.push_back(2.0 * static_cast<double>(kAdds) / static_cast<double>(runs[0] + runs[1]));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// The writer's load of its own line after another CPU loaded it: a hit if the read shared
// the line, a transfer if it took the line whole. 200 fresh lines [guess: a few ms], each
// on its own line apart from the turn word.
double writer_reread_ns(const Clock& clock, int writer, int reader) {
  constexpr std::size_t kLines = 200;
  const auto lines = std::make_unique<TokenLine[]>(kLines);
  const auto turn = std::make_unique<TokenLine>();
  const double overhead = clock.empty_interval_ticks();
  std::vector<double> samples;
  const auto write_then_reread = [&] {
    for (std::uint64_t i = 0; i < kLines; ++i) {
      lines[i].token.store(i + 1, std::memory_order_relaxed);
      turn->token.store(2 * i + 1, std::memory_order_release);
      while (turn->token.load(std::memory_order_acquire) != 2 * i + 2) {
      }
      const std::uint64_t t0 = clock.start();
      const std::uint64_t seen = lines[i].token.load(std::memory_order_relaxed);
      const std::uint64_t t1 = clock.stop();
      if (seen != i + 1) throw std::logic_error("c2c probe: the writer's line changed under it");
      samples.push_back(clock.ns(std::max(0.0, static_cast<double>(t1 - t0) - overhead)));
    }
  };
  const auto read_in_turn = [&] {
    for (std::uint64_t i = 0; i < kLines; ++i) {
      while (turn->token.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      (void)lines[i].token.load(std::memory_order_relaxed);
      turn->token.store(2 * i + 2, std::memory_order_release);
    }
  };
  run_pinned_pair(writer, write_then_reread, reader, read_in_turn);
  return measure::summarize(samples).median_ns;
}

}  // namespace

C2cProbeResult c2c_probe(const C2cProbeOptions& options) {
  if (options.rounds_per_batch < 1 || options.warmup_rounds < 0)
    throw std::invalid_argument("c2c probe: rounds_per_batch must be positive and warmup_rounds not negative");
  const Deadline deadline(options.limits.seconds);
  C2cProbeResult result;
  result.seconds = options.limits.seconds;
  result.rounds_per_batch = options.rounds_per_batch;
  const CpuSample sample = sample_cpus(allowed_cpus(), options.max_cpus);
  result.allowed_cpus = sample.allowed;
  result.cpus = sample.measured;
  result.cpu_step = sample.step;
  if (!sample.note.empty()) result.notes.push_back(sample.note);
  const Clock clock(options.clock);
  result.clock = clock.info();
  run_pinned(result.cpus.front(), [&] {
    result.own_line_rmw_ns = own_line_rmw_ns(clock);
    result.fence_ns = fence_ns(clock);
    result.pause_ns = pause_ns(clock);
  });
  const std::size_t n = result.cpus.size();
  if (n < 2) {
    result.notes.push_back(fmt::format("one allowed CPU ({}): no pair to measure", result.cpus.front()));
    result.elapsed_s = deadline.elapsed_s();
    return result;
  }
  result.adds_per_handover = adds_per_handover(result.cpus[0], result.cpus[1]);
  result.writer_reread_ns = writer_reread_ns(clock, result.cpus[0], result.cpus[1]);
  result.one_way_iqr_ns = one_way_iqr_ns(clock, result.cpus[0], result.cpus[1]);
  result.one_way_ns.assign(n, std::vector<double>(n, 0));
  result.batches.assign(n, std::vector<std::uint64_t>(n, 0));
  std::size_t pairs_left = n * (n - 1) / 2;
  const PairContext context{clock, options};
  for (std::size_t i = 0; i < n && !result.interrupted; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (options.limits.stopped()) {
        result.interrupted = true;
        result.notes.push_back(fmt::format("interrupted: {} pairs not measured (0 in the matrix)", pairs_left));
        break;
      }
      const std::vector<double> samples =
          ping_pong(context, result.cpus[i], result.cpus[j], deadline.next_part_end(pairs_left--));
      result.one_way_ns[i][j] = result.one_way_ns[j][i] = least_part_median(samples);
      result.batches[i][j] = result.batches[j][i] = samples.size();
    }
  }
  // A stop during the last pair cut its batches short.
  result.interrupted = result.interrupted || options.limits.stopped();
  result.elapsed_s = deadline.elapsed_s();
  return result;
}

}  // namespace lockstep::native::probes
