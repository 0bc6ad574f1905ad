#include "sim/machine/ccbench.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "measure/latency_summary.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/machine/machine_config.hpp"
#include "sim/timed_strategy.hpp"

namespace lockstep::sim::machine {

namespace {

using P = SimPlatform;
constexpr std::size_t kLineSpacing = 8192;
using Word = P::Atomic<std::uint64_t>;

// The holders and the measuring CPU take turns through `turn`, a line of its own: in
// repetition r, holder i acts when it reads r * (holders + 1) + i, the measurer when it
// reads r * (holders + 1) + holders, and each hands on by storing the next number.
class Ccbench final : public SimWorkload {
 public:
  Ccbench(const CcbenchParams& params, CpuId measurer) : params_(params), measurer_(measurer) {}

  void setup(Engine& engine) override {
    const NodeId home = params_.home.value_or(engine.node_of(params_.holders.front()));
    turn_ = make_on<P, Word>(engine.node_of(measurer_), kLineBytes);
    P::label(turn_, sizeof(*turn_), "turn");
    lines_.clear();
    // ccbench spaces its lines 2 KiB apart against prefetchers; here each line starts its own
    // 8 KiB, a DRAM row of every preset, so no repetition finds its row open from the last.
    for (std::uint32_t r = 0; r < params_.repetitions; ++r) lines_.push_back(make_on<P, Word>(home, kLineSpacing));
    P::label(lines_.front(), sizeof(Word), "line");
    const std::uint64_t stride = params_.holders.size() + 1;
    for (std::size_t i = 0; i < params_.holders.size(); ++i) {
      engine.spawn("holder" + std::to_string(i), params_.holders[i], [this, i, stride] {
        for (std::uint32_t r = 0; r < params_.repetitions; ++r) {
          wait_for(r * stride + i);
          hold(*lines_[r], i);
          turn_->store(r * stride + i + 1, std::memory_order_release);
        }
      });
    }
    engine.spawn("measure", measurer_, [this, stride] {
      samples_.clear();
      for (std::uint32_t r = 0; r < params_.repetitions; ++r) {
        wait_for(r * stride + stride - 1);
        const std::uint64_t t0 = P::now();
        operate(*lines_[r]);
        samples_.push_back(static_cast<double>(P::now() - t0));
        turn_->store((r + 1) * stride, std::memory_order_release);
      }
    });
  }
  void check(Engine&) override {}
  const std::vector<double>& samples() const { return samples_; }

 private:
  void wait_for(std::uint64_t n) const {
    while (turn_->load(std::memory_order_acquire) != n) P::cpu_relax();
  }
  void hold(Word& line, std::size_t i) const { ccbench_hold(line, params_.state, i); }
  void operate(Word& line) const { ccbench_operate(line, params_.state, params_.op); }

  const CcbenchParams& params_;
  CpuId measurer_;
  Word* turn_ = nullptr;
  std::vector<Word*> lines_;
  std::vector<double> samples_;
};

}  // namespace

CcbenchResult run_ccbench(Engine& engine, const CcbenchParams& params, std::uint64_t seed, TraceRecorder* first_trace) {
  if (params.holders.empty() && params.state != LineState::invalid)
    throw std::invalid_argument("ccbench: a line in that state needs a holder");
  if (params.repetitions == 0) throw std::invalid_argument("ccbench: no repetitions");
  CcbenchResult result;
  TimedStrategy oracle(seed);
  for (const CpuId cpu : params.cpus) {
    Ccbench w(params, cpu);
    TraceRecorder* trace = result.executions == 0 ? first_trace : nullptr;
    const ExecutionResult r = engine.run(w, oracle, trace, result.executions++);
    if (r.violation) throw std::runtime_error("ccbench failed: " + r.violation->message);
    result.memory_ops += r.memory_ops;
    const std::vector<double>& s = w.samples();
    if (s.size() != params.repetitions) throw std::logic_error("ccbench: a repetition went unmeasured");
    // The native probe's summary (measure/latency_summary.hpp), so both sides agree on a median.
    const measure::LatencySummary summary = measure::summarize(s);
    CcbenchRow row;
    row.cpu = cpu;
    row.min_ns = *std::min_element(s.begin(), s.end());
    row.max_ns = *std::max_element(s.begin(), s.end());
    row.mean_ns = summary.mean_ns;
    row.median_ns = summary.median_ns;
    result.rows.push_back(row);
  }
  return result;
}

}  // namespace lockstep::sim::machine
