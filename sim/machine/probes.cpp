#include "sim/machine/probes.hpp"

#include <algorithm>

#include "sim/exec/sim_platform.hpp"
#include "sim/line_cycle.hpp"
#include "sim/machine/machine_config.hpp"
#include "sim/rng.hpp"
#include "sim/timed_strategy.hpp"

namespace lockstep::sim::machine {

void LatencyProbe::setup(Engine& engine) {
  counts_.clear();
  const std::uint64_t base = engine.memory().reserve_unbacked(params_.bytes, params_.placement, engine.shape().nodes());
  engine.spawn("probe", params_.cpu, [this, &engine, base] {
    const std::uint64_t lines = std::max<std::uint64_t>(1, params_.bytes / kLineBytes);
    if (params_.bytes <= params_.warmup_max_bytes) {
      // A buffer that may sit in a cache is read as the native probe chases its own: round
      // one random cycle (line_cycle.hpp), once to warm it, then on. Where a level holds part
      // of the buffer this decides the mean: this workplace's Intel guest reads 4.40-4.45 ns
      // a load from 64 to 256 KiB, its L2's figure, where random reads would hit its 48 KiB
      // L1 a fifth to three quarters of the time.
      const LineCycle cycle(lines, params_.seed);
      for (std::uint64_t i = 0; i < lines; ++i) engine.touch(base + cycle.at(i) * kLineBytes, OpKind::load);
      for (std::uint64_t i = 0; i < params_.samples; ++i)
        ++counts_[engine.touch(base + cycle.at(i) * kLineBytes, OpKind::load)];
      return;
    }
    // Past the warmed sizes a cycle of millions of lines is not closed in a run's samples,
    // so its reads are random reads of distinct lines; independent draws repeat a line about
    // samples^2 / (2 lines) times (twice in 4,000 reads of 256 MiB), and are kept.
    Rng rng(params_.seed);
    for (std::uint64_t i = 0; i < params_.samples; ++i) {
      const std::uint64_t line = rng.below(lines);
      ++counts_[engine.touch(base + line * kLineBytes, OpKind::load)];
    }
  });
}

namespace {

// Two threads pass a token through one line with compare-and-swap: `ping` turns 2k into
// 2k+1, `pong` turns 2k+1 into 2k+2. Each waits by retrying its CAS, as the
// core-to-core-latency tool does.
class PingPong final : public SimWorkload {
 public:
  PingPong(CpuId a, CpuId b, const C2cParams& params) : a_(a), b_(b), params_(params) {}
  void setup(Engine& engine) override {
    using P = SimPlatform;
    auto* token = make_on<P, P::Atomic<std::uint64_t>>(params_.home.value_or(engine.node_of(a_)), kLineBytes);
    P::label(token, sizeof(*token), "token");
    const int total = params_.warmup_rounds + params_.rounds;
    engine.spawn("ping", a_, [this, token, total] {
      for (int r = 0; r < total; ++r) {
        if (r == params_.warmup_rounds) start_ns_ = P::now();
        pass(*token, 2 * static_cast<std::uint64_t>(r));
      }
      // The last pong has landed once the token reads 2 * total.
      while (token->load(std::memory_order_acquire) != 2 * static_cast<std::uint64_t>(total)) P::cpu_relax();
      end_ns_ = P::now();
    });
    engine.spawn("pong", b_, [token, total] {
      for (int r = 0; r < total; ++r) pass(*token, 2 * static_cast<std::uint64_t>(r) + 1);
    });
  }
  void check(Engine&) override {}
  double one_way_ns() const {
    return static_cast<double>(end_ns_ - start_ns_) / (2.0 * static_cast<double>(params_.rounds));
  }

 private:
  static void pass(SimPlatform::Atomic<std::uint64_t>& token, std::uint64_t from) {
    std::uint64_t expected = from;
    while (!token.compare_exchange_strong(expected, from + 1, std::memory_order_acq_rel)) {
      expected = from;
    }
  }

  CpuId a_;
  CpuId b_;
  C2cParams params_;
  std::uint64_t start_ns_ = 0;
  std::uint64_t end_ns_ = 0;
};

}  // namespace

C2cResult run_c2c(Engine& engine, const C2cParams& params, const std::vector<int>& core_of_cpu, std::uint64_t seed,
                  TraceRecorder* first_pair_trace) {
  C2cResult result;
  std::vector<int> seen_cores;
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(core_of_cpu.size()); ++cpu) {
    if (!params.cpus.empty()) break;
    const int core = core_of_cpu[static_cast<std::size_t>(cpu)];
    if (!params.smt && std::find(seen_cores.begin(), seen_cores.end(), core) != seen_cores.end()) continue;
    seen_cores.push_back(core);
    result.cpus.push_back(cpu);
  }
  for (const CpuId cpu : params.cpus) {
    if (cpu >= static_cast<CpuId>(core_of_cpu.size()))
      throw std::invalid_argument("c2c: a CPU the machine does not have");
    result.cpus.push_back(cpu);
  }
  const std::size_t n = result.cpus.size();
  result.one_way_ns.assign(n, std::vector<double>(n, 0));
  TimedStrategy oracle(seed);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      PingPong w(result.cpus[i], result.cpus[j], params);
      TraceRecorder* trace = result.executions == 0 ? first_pair_trace : nullptr;
      const ExecutionResult r = engine.run(w, oracle, trace, result.executions++);
      if (r.violation) throw std::runtime_error("c2c ping-pong failed: " + r.violation->message);
      result.memory_ops += r.memory_ops;
      result.one_way_ns[i][j] = result.one_way_ns[j][i] = w.one_way_ns();
    }
  }
  return result;
}

}  // namespace lockstep::sim::machine
