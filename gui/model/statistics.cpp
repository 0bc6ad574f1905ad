#include "gui/model/statistics.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace lockstep::view {

static_assert(static_cast<std::size_t>(ThreadState::unknown) + 1 == kThreadStates,
              "ThreadTimes has one slot per ThreadState");

namespace {

// Samples of one lock, one thread or all locks, turned into LockTimes at the end.
struct LockSamples {
  std::vector<std::uint64_t> waits_ns, holds_ns;
  std::size_t open_waits = 0, open_holds = 0, shared_holds = 0;

  LockTimes times() const {
    return LockTimes{distribution_of(waits_ns), distribution_of(holds_ns), open_waits, open_holds, shared_holds};
  }
};

// One thread's progress on one lock: when it began waiting, when it acquired.
struct LockProgress {
  std::optional<std::uint64_t> wait_t, acquire_t;
  bool shared = false;
};

void add_lock_times(const Trace& trace, const Selection& sel, Statistics& out) {
  std::map<std::uint64_t, LockSamples> by_lock;
  std::map<int, LockSamples> by_thread;
  LockSamples all;
  auto each = [&](const LockEvent& e, auto&& fn) {
    fn(by_lock[e.addr]);
    fn(by_thread[e.thread]);
    fn(all);
  };
  std::map<std::pair<int, std::uint64_t>, LockProgress> progress;
  std::map<std::pair<int, std::uint64_t>, const LockEvent*> last_event;
  for (const LockEvent& e : trace.locks) {
    if (!sel.has_thread(e.thread)) continue;
    LockProgress& p = progress[{e.thread, e.addr}];
    last_event[{e.thread, e.addr}] = &e;
    switch (e.act) {
      case LockEvent::Act::wait:
        p.wait_t = e.t;
        break;
      case LockEvent::Act::acquire: {
        const std::uint64_t began = p.wait_t.value_or(e.t);
        if (sel.has_time(began)) each(e, [&](LockSamples& s) { s.waits_ns.push_back(e.t - began); });
        p = LockProgress{std::nullopt, e.t, e.shared};
        break;
      }
      case LockEvent::Act::release:
        if (p.acquire_t && sel.has_time(*p.acquire_t))
          each(e, [&](LockSamples& s) {
            s.holds_ns.push_back(e.t - *p.acquire_t);
            s.shared_holds += p.shared ? 1 : 0;
          });
        p = LockProgress{};
        break;
    }
  }
  for (const auto& [key, p] : progress) {
    const LockEvent& e = *last_event[key];
    if (p.wait_t && sel.has_time(*p.wait_t)) each(e, [](LockSamples& s) { ++s.open_waits; });
    if (p.acquire_t && sel.has_time(*p.acquire_t)) each(e, [](LockSamples& s) { ++s.open_holds; });
  }
  for (const auto& [addr, s] : by_lock) out.locks[addr] = s.times();
  for (const auto& [th, s] : by_thread) out.lock_threads[th] = s.times();
  out.all_locks = all.times();
}

// The events in the selection through the lock profiler (profile/lock_profile.hpp): what the
// command line's --lock-profile shows, for the events a trace kept.
void add_lock_profile(const Trace& trace, const Selection& sel, Statistics& out) {
  profile::LockProfiler profiler;
  for (const LockEvent& e : trace.locks) {
    if (!sel.has_thread(e.thread) || !sel.has_time(e.t)) continue;
    const std::size_t colon = e.site.rfind(':');
    // The file interned alone: the recorder keeps its pointer, which must end the name.
    const std::string_view file =
        colon == std::string_view::npos ? std::string_view() : intern_name(e.site.substr(0, colon));
    const auto line =
        colon == std::string_view::npos
            ? 0U
            : static_cast<std::uint32_t>(std::strtoul(std::string(e.site.substr(colon + 1)).c_str(), nullptr, 10));
    const LockNote what = e.act == LockEvent::Act::wait      ? LockNote::wait
                          : e.act == LockEvent::Act::acquire ? LockNote::acquire
                                                             : LockNote::release;
    profiler.note(static_cast<std::uint32_t>(e.thread), 0, e.addr, what, e.shared, file.empty() ? "" : file.data(),
                  line, e.t);
  }
  out.lock_profile = profiler.profile([&trace](std::uint64_t addr) { return trace.address_name(addr); });
  out.lock_profile_unmatched = profiler.unmatched();
}

// Queue lengths over [t0, span_end), span_end being the range's end clipped to the trace's.
void add_futex_queues(const Trace& trace, const Selection& sel, std::uint64_t span_end, Statistics& out) {
  struct Queue {
    std::size_t length = 0;
    std::uint64_t since = 0;  // when `length` began to hold
    double area = 0;          // length times ns, inside the range
    FutexQueue stats;
    bool seen_in_range = false;
  };
  std::map<std::uint64_t, Queue> queues;
  auto hold_until = [&](Queue& q, std::uint64_t t) {
    const std::uint64_t from = std::max(q.since, sel.t0);
    const std::uint64_t to = std::min(t, span_end);
    if (to > from) {
      q.area += static_cast<double>(q.length) * static_cast<double>(to - from);
      q.stats.max_length = std::max(q.stats.max_length, q.length);
      q.seen_in_range = q.seen_in_range || q.length > 0;
    }
    q.since = std::max(q.since, t);
  };
  for (const FutexEvent& e : trace.futexes) {
    Queue& q = queues[e.bucket];
    hold_until(q, e.t);
    const bool enqueue = e.act == FutexEvent::Act::enqueue;
    q.length = enqueue ? q.length + 1 : (q.length ? q.length - 1 : 0);
    if (!sel.has_time(e.t)) continue;
    q.seen_in_range = true;
    ++(enqueue ? q.stats.enqueues : q.stats.dequeues);
    q.stats.max_length = std::max(q.stats.max_length, q.length);
  }
  const double span = span_end > sel.t0 ? static_cast<double>(span_end - sel.t0) : 0;
  for (auto& [bucket, q] : queues) {
    hold_until(q, span_end);
    if (!q.seen_in_range) continue;
    q.stats.mean_length = span > 0 ? q.area / span : 0;
    out.futex_queues[bucket] = q.stats;
  }
}

void add_thread_times(const Trace& trace, const Selection& sel, Statistics& out) {
  for (const Thread& th : trace.threads) {
    if (!sel.has_thread(th.id)) continue;
    ThreadTimes& times = out.thread_times[th.id];
    for (const StateInterval& iv : th.intervals) {
      const std::uint64_t from = std::max(iv.begin, sel.t0);
      const std::uint64_t to = std::min(iv.end, sel.t1);
      if (to > from) times.ns[static_cast<std::size_t>(iv.state)] += to - from;
    }
  }
}

void add_operations(const Trace& trace, const Selection& sel, Statistics& out) {
  for (const Operation& op : trace.ops) {
    if (!sel.has_time(op.t) || !sel.has_thread(op.thread)) continue;
    ++out.ops;
    ++out.op_counts[std::string(op.op)];
    if (!op.rmw.empty()) ++out.rmw_counts[std::string(op.rmw)];
    if (op.rmw == "cas" && op.ok == false) ++out.failed_cas;
    if (!op.src.empty()) ++out.sources[std::string(op.src)];
    if (is_memory_access(op)) out.latencies_ns.push_back(op.lat);
  }
  out.latency = distribution_of(out.latencies_ns);
  out.latency_histogram = bin_samples(out.latencies_ns);
}

}  // namespace

bool Selection::has_thread(int th) const {
  return threads.empty() || std::find(threads.begin(), threads.end(), th) != threads.end();
}

Selection whole_trace(const Trace& trace) { return Selection{0, trace.end_time + 1, {}}; }

bool is_memory_access(const Operation& op) {
  return op.op == "load" || op.op == "store" || op.op == "plain_load" || op.op == "plain_store" || op.op == "rmw";
}

Statistics compute_statistics(const Trace& trace, const Selection& selection) {
  Statistics out;
  out.selection = selection;
  add_operations(trace, selection, out);
  add_lock_times(trace, selection, out);
  add_lock_profile(trace, selection, out);
  add_futex_queues(trace, selection, std::min(selection.t1, std::max(trace.end_time, selection.t0)), out);
  add_thread_times(trace, selection, out);
  return out;
}

}  // namespace lockstep::view
