#include "gui/model/trace_metrics.hpp"

#include <algorithm>
#include <set>

#include "trace/format.hpp"

namespace lockstep::view {

namespace {

using Value = std::optional<double>;

// One trace's figures that the rows are made of.
struct Figures {
  double duration_ns = 0;
  std::size_t lock_acquisitions = 0;
  std::size_t enqueues = 0, dequeues = 0;
  std::size_t wakeups = 0;
  std::vector<std::uint64_t> wake_latencies_ns;
};

Figures figures_of(const Trace& t, const Statistics& s) {
  Figures f;
  f.duration_ns = static_cast<double>(t.end_time);
  // Every acquire is one wait sample (0 ns when uncontended); a sampled trace holds 1 in `sample`.
  f.lock_acquisitions = s.all_locks.wait.count * t.sample;
  for (const FutexEvent& e : t.futexes) ++(e.act == FutexEvent::Act::enqueue ? f.enqueues : f.dequeues);
  for (const Operation& op : t.ops) f.wakeups += op.op == trace::op::unpark && op.woke.value_or(false) ? 1 : 0;
  for (const WakeEdge& w : t.wakes) f.wake_latencies_ns.push_back(w.t_running - w.t_unpark);
  return f;
}

Value per_second(double count, double duration_ns) {
  if (duration_ns <= 0) return std::nullopt;
  return count * 1e9 / duration_ns;
}

class Rows {
 public:
  void add(std::string name, std::string unit, Value a, Value b) {
    MetricRow row{std::move(name), std::move(unit), {a, b}, std::nullopt};
    if (a && b) row.difference_pct = percent_difference(*a, *b);
    rows_.push_back(std::move(row));
  }
  // A count and its rate over each trace's duration; absent on a side where `has` is false.
  void add_counted(const std::string& name, Pair<bool> has, Pair<double> count, Pair<double> duration_ns) {
    const auto side = [&](std::size_t i, Value v) { return has[i] ? v : std::nullopt; };
    add(name, "", side(0, count[0]), side(1, count[1]));
    add(name + " per second", "/s", side(0, per_second(count[0], duration_ns[0])),
        side(1, per_second(count[1], duration_ns[1])));
  }
  std::vector<MetricRow> take() { return std::move(rows_); }

 private:
  std::vector<MetricRow> rows_;
};

Value lock_figure(const Statistics& s, bool hold, bool p99) {
  const Distribution& d = hold ? s.all_locks.hold : s.all_locks.wait;
  if (d.count == 0) return std::nullopt;
  return p99 ? static_cast<double>(d.p99_ns) : d.mean_ns;
}

bool has_steps(const Trace& t) {
  return std::any_of(t.threads.begin(), t.threads.end(), [](const Thread& x) { return !x.operations.empty(); });
}

double count_of(const std::map<std::string, std::uint64_t>& counts, const std::string& name) {
  const auto it = counts.find(name);
  return it == counts.end() ? 0 : static_cast<double>(it->second);
}

// Whether the trace records sleeping and waking at all (a host futex backend natively does not).
bool has_parking(const Trace& t) {
  return std::any_of(t.ops.begin(), t.ops.end(),
                     [](const Operation& op) { return op.op == trace::op::park || op.op == trace::op::unpark; });
}

void thread_rows(Rows& rows, const Pair<const Trace*>& t, const Pair<const Statistics*>& s, Pair<double> duration) {
  const std::size_t threads = std::max(t[0]->threads.size(), t[1]->threads.size());
  for (std::size_t th = 0; th < threads; ++th) {
    const Pair<const Thread*> thread{t[0]->thread(static_cast<int>(th)), t[1]->thread(static_cast<int>(th))};
    const std::string who = (thread[0] ? thread[0]->name : thread[1]->name) + ": ";
    Pair<bool> has{};
    Pair<double> count{};
    for (std::size_t i = 0; i < 2; ++i) {
      const auto it = s[i]->lock_threads.find(static_cast<int>(th));
      has[i] = thread[i] != nullptr && !t[i]->locks.empty();
      count[i] = it == s[i]->lock_threads.end() ? 0 : static_cast<double>(it->second.wait.count * t[i]->sample);
    }
    rows.add_counted(who + "lock acquisitions", has, count, duration);
    std::set<std::string> names;
    for (const Thread* x : thread)
      if (x != nullptr)
        for (const auto& [name, n] : x->operations) names.insert(name);
    for (const std::string& name : names) {
      for (std::size_t i = 0; i < 2; ++i) {
        // A trace with steps records every thread's outermost ones: 0 there is a real 0.
        has[i] = thread[i] != nullptr && has_steps(*t[i]);
        count[i] = thread[i] != nullptr ? count_of(thread[i]->operations, name) * static_cast<double>(t[i]->sample) : 0;
      }
      rows.add_counted(who + name, has, count, duration);
    }
  }
}

}  // namespace

std::optional<double> percent_difference(double a, double b) {
  if (a == 0) return std::nullopt;
  return (b - a) / a * 100;
}

std::vector<MetricRow> metric_differences(const Pair<const Trace*>& t, const Pair<const Statistics*>& s) {
  const Pair<Figures> f{figures_of(*t[0], *s[0]), figures_of(*t[1], *s[1])};
  const Pair<double> duration{f[0].duration_ns, f[1].duration_ns};
  const auto both = [](auto fn) { return Pair<double>{fn(0), fn(1)}; };
  Rows rows;
  rows.add("duration", "ns", duration[0], duration[1]);
  rows.add_counted("events", {true, true}, both([&](std::size_t i) { return static_cast<double>(t[i]->events); }),
                   duration);
  const Pair<bool> locks{!t[0]->locks.empty(), !t[1]->locks.empty()};
  rows.add_counted("lock acquisitions", locks,
                   both([&](std::size_t i) { return static_cast<double>(f[i].lock_acquisitions); }), duration);
  for (const bool hold : {false, true})
    for (const bool p99 : {false, true})
      rows.add(std::string("lock ") + (hold ? "hold" : "wait") + (p99 ? " p99" : " mean"), "ns",
               lock_figure(*s[0], hold, p99), lock_figure(*s[1], hold, p99));
  const Pair<bool> futexes{!t[0]->futexes.empty(), !t[1]->futexes.empty()};
  rows.add_counted("futex waits queued", futexes,
                   both([&](std::size_t i) { return static_cast<double>(f[i].enqueues); }), duration);
  rows.add_counted("futex waiters dequeued", futexes,
                   both([&](std::size_t i) { return static_cast<double>(f[i].dequeues); }), duration);
  rows.add_counted("wakeups", {has_parking(*t[0]), has_parking(*t[1])},
                   both([&](std::size_t i) { return static_cast<double>(f[i].wakeups); }), duration);
  const auto wake_mean = [&](std::size_t i) -> Value {
    if (f[i].wake_latencies_ns.empty()) return std::nullopt;
    return distribution_of(f[i].wake_latencies_ns).mean_ns;
  };
  rows.add("wake latency mean", "ns", wake_mean(0), wake_mean(1));
  thread_rows(rows, t, s, duration);
  return rows.take();
}

std::vector<MetricRow> metric_differences(const Trace& a, const Trace& b) {
  const Statistics sa = compute_statistics(a, whole_trace(a)), sb = compute_statistics(b, whole_trace(b));
  return metric_differences(Pair<const Trace*>{&a, &b}, Pair<const Statistics*>{&sa, &sb});
}

}  // namespace lockstep::view
