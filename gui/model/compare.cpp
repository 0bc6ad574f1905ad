#include "gui/model/compare.hpp"

#include <algorithm>

namespace lockstep::view {

namespace {

std::string finding_text(const Trace& t) {
  if (t.violation) return "violation " + t.violation->property;
  if (t.witness) return "witness " + t.witness->property;
  return {};
}

std::optional<Divergence> first_divergence(const Trace& a, const Trace& b) {
  const std::size_t common = std::min(a.ops.size(), b.ops.size());
  std::size_t i = 0;
  while (i < common && step_key(a.ops[i]) == step_key(b.ops[i])) ++i;
  if (i == a.ops.size() && i == b.ops.size()) return std::nullopt;
  Divergence d;
  d.index = i;
  if (i < a.ops.size()) d.described[0] = a.describe(a.ops[i]);
  if (i < b.ops.size()) d.described[1] = b.describe(b.ops[i]);
  return d;
}

}  // namespace

StepKey step_key(const Operation& op) {
  return StepKey{op.thread, std::string(op.rmw.empty() ? op.op : op.rmw), op.addr, op.val};
}

Comparison compare_traces(const Trace& a, const Trace& b) {
  const Pair<const Trace*> traces{&a, &b};
  const Pair<Statistics> all{compute_statistics(a, whole_trace(a)), compute_statistics(b, whole_trace(b))};
  Comparison c;
  const std::size_t threads = std::max(a.threads.size(), b.threads.size());
  c.threads.resize(threads);
  for (std::size_t side = 0; side < 2; ++side) {
    const Trace& t = *traces[side];
    const Statistics& stats = all[side];
    c.end_time_ns[side] = t.end_time;
    c.steps[side] = t.end_steps;
    c.outcome[side] = t.outcome;
    c.finding[side] = finding_text(t);
    c.ops[side] = stats.ops;
    for (const auto& [kind, n] : stats.op_counts) c.op_counts[kind][side] = n;
    for (std::size_t th = 0; th < threads; ++th) {
      c.threads[th].thread = static_cast<int>(th);
      if (th >= t.threads.size()) continue;
      c.threads[th].name[side] = t.threads[th].name;
      c.threads[th].times[side] = stats.thread_times.at(static_cast<int>(th));
    }
    c.locks[side] = stats.all_locks;
  }
  c.divergence = first_divergence(a, b);
  c.metrics = metric_differences(traces, Pair<const Statistics*>{&all[0], &all[1]});
  return c;
}

}  // namespace lockstep::view
