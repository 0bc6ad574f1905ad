#include "native/probes/c2c_probe.hpp"

#include <atomic>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "native/probes/latency_summary.hpp"
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
      if (one_way_ns.size() >= kMinBatches && (Deadline::Clock::now() >= part_end || c.options.limits.stopped()))
        break;
    }
    // Let pong's last answer land, then tell it to stop.
    while (token.load(std::memory_order_acquire) != 2 * round) {
    }
    token.store(kDone, std::memory_order_release);
  };
  auto pong = [&] {
    for (std::uint64_t round = 0; pass(token, 2 * round + 1); ++round) {
    }
  };
  run_pinned_pair(a, ping, b, pong);
  return one_way_ns;
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
  const std::size_t n = result.cpus.size();
  if (n < 2) {
    result.notes.push_back(fmt::format("one allowed CPU ({}): no pair to measure", result.cpus.front()));
    result.elapsed_s = deadline.elapsed_s();
    return result;
  }
  const Clock clock(options.clock);
  result.clock = clock.info();
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
      result.one_way_ns[i][j] = result.one_way_ns[j][i] = summarize(samples).median_ns;
      result.batches[i][j] = result.batches[j][i] = samples.size();
    }
  }
  // A stop during the last pair cut its batches short.
  result.interrupted = result.interrupted || options.limits.stopped();
  result.elapsed_s = deadline.elapsed_s();
  return result;
}

}  // namespace lockstep::native::probes
