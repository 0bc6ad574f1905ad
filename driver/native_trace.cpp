#include "driver/native_trace.hpp"

#include <algorithm>
#include <queue>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "trace/format.hpp"

namespace lockstep::driver {

namespace {

using native::NativeThreadState;
using native::ThreadTrace;
using native::TraceEvent;
using native::TraceEventKind;

trace::LockAct lock_act(std::uint8_t act) {
  switch (static_cast<LockNote>(act)) {
    case LockNote::wait:
      return trace::LockAct::wait;
    case LockNote::acquire:
      return trace::LockAct::acquire;
    case LockNote::release:
      break;
  }
  return trace::LockAct::release;
}

trace::ThreadState thread_state(std::uint8_t state) {
  switch (static_cast<NativeThreadState>(state)) {
    case NativeThreadState::running:
      return trace::ThreadState::running;
    case NativeThreadState::parked:
      return trace::ThreadState::parked;
    case NativeThreadState::finished:
      break;
  }
  return trace::ThreadState::finished;
}

// sched_getcpu's -1 (it failed) was stored as an unsigned 32-bit number.
std::int64_t cpu_of(const TraceEvent& e) { return e.c == ~std::uint32_t{0} ? -1 : static_cast<std::int64_t>(e.c); }

bool unattributed(const native::TraceSession& session, const TraceEvent& e) {
  return e.kind == TraceEventKind::futex_queue && session.thread_of_stack_address(e.b) < 0;
}

// Per thread: what its buffer dropped, and its futex events whose waiter cannot be named.
std::vector<std::uint64_t> dropped_per_thread(const native::TraceSession& session) {
  std::vector<std::uint64_t> dropped;
  for (const auto& t : session.threads()) {
    std::uint64_t n = t ? t->dropped : 0;
    if (t)
      for (std::size_t i = 0; i < t->used; ++i) n += unattributed(session, t->events[i]) ? 1 : 0;
    dropped.push_back(n);
  }
  return dropped;
}

void write_event(const native::TraceSession& session, std::uint64_t t, std::uint64_t th, const TraceEvent& e,
                 trace::Writer& w) {
  switch (e.kind) {
    case TraceEventKind::lock: {
      // The site's file is a string literal of this binary (std::source_location).
      const std::string site = e.b == 0 ? std::string()
                                        : profile::source_relative(reinterpret_cast<const char*>(e.b)) + ":" +
                                              std::to_string(e.c);  // NOLINT
      w.lock(t, th, e.a, lock_act(e.act), e.flag, site);
      break;
    }
    case TraceEventKind::futex_queue: {
      const auto act = static_cast<FutexQueueNote>(e.act) == FutexQueueNote::enqueue ? trace::FutexAct::enqueue
                                                                                     : trace::FutexAct::dequeue;
      w.futex(t, th, act, e.c, e.a, static_cast<std::uint64_t>(session.thread_of_stack_address(e.b)));
      break;
    }
    case TraceEventKind::step:
      if (static_cast<StepNote>(e.act) == StepNote::begin) {
        // `what` is a string literal of the design's (P::note_step's contract).
        w.step_begin(t, th, std::string_view(reinterpret_cast<const char*>(e.a), e.b));
      } else {
        w.step_end(t, th);
      }
      break;
    case TraceEventKind::park:
      w.simple(t, th, cpu_of(e), trace::op::park, 0);
      break;
    case TraceEventKind::unpark:
      w.unpark(t, th, cpu_of(e), e.a, e.flag);
      break;
    case TraceEventKind::state:
      w.state(t, th, thread_state(e.act));
      break;
  }
}

// The next unwritten event of each thread, by time, then thread number.
struct Cursor {
  std::uint64_t t;
  std::size_t thread;
  std::size_t next;
  bool operator>(const Cursor& o) const { return t != o.t ? t > o.t : thread > o.thread; }
};

}  // namespace

std::string native_trace_header(const native::TraceSession& session, const scenario::Scenario& s) {
  std::uint64_t dropped = 0;
  for (std::uint64_t n : dropped_per_thread(session)) dropped += n;
  nlohmann::ordered_json h;
  h[trace::field::platform] = trace::name_of(trace::TracePlatform::native);
  h[trace::field::scenario] = s.path;
  h[trace::field::name] = s.name;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [path, value] : s.params) params[path] = value;
  h[trace::field::params] = params;
  h[trace::field::strategy] = "native";
  h[trace::field::clock] = session.uses_tsc() ? trace::kClockTsc : trace::kClockSteady;
  h[trace::field::events_per_thread] = session.events_per_thread();
  h[trace::field::sample] = session.sample();
  h[trace::field::dropped_events] = dropped;
  h[trace::field::dropped_labels] = session.labels_dropped();
  // CPU numbers are the host's: the header covers every one up to the highest this process may use.
  const std::vector<CpuId> cpus = native::allowed_cpus();
  const CpuId highest = *std::max_element(cpus.begin(), cpus.end());
  h[trace::field::cpus] = highest + 1;
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (CpuId c = 0; c <= highest; ++c) nodes.push_back(native::node_of_cpu(c));
  h[trace::field::node_of_cpu] = nodes;
  const std::string text = h.dump();
  return text.substr(1, text.size() - 2);
}

NativeTraceCounts write_native_trace(const native::TraceSession& session, const report::RowReport& row,
                                     trace::Writer& w) {
  NativeTraceCounts counts;
  for (const native::TraceLabel& l : session.labels()) w.label(l.addr, l.bytes, l.name, l.stride, l.first, l.fields);
  const std::vector<std::uint64_t> dropped = dropped_per_thread(session);
  const auto& threads = session.threads();
  for (std::size_t i = 0; i < threads.size(); ++i) {
    if (!threads[i]) continue;
    w.thread(0, i, threads[i]->name, threads[i]->cpu, dropped[i]);
    counts.dropped += dropped[i];
  }
  // A k-way merge of the buffers: each is in its thread's order already. A thread's times are
  // kept from going backwards (ticks converted to ns round, and a clock could step back),
  // so each thread's events keep the order the thread made them in.
  std::priority_queue<Cursor, std::vector<Cursor>, std::greater<>> next;
  std::vector<std::uint64_t> last(threads.size(), 0);
  const auto push = [&](std::size_t th, std::size_t index) {
    const ThreadTrace& t = *threads[th];
    if (index >= t.used) return;
    next.push(Cursor{std::max(last[th], session.ns_since_start(t.events[index].ticks)), th, index});
  };
  for (std::size_t th = 0; th < threads.size(); ++th)
    if (threads[th]) push(th, 0);
  while (!next.empty()) {
    const Cursor c = next.top();
    next.pop();
    last[c.thread] = c.t;
    const TraceEvent& e = threads[c.thread]->events[c.next];
    if (unattributed(session, e)) {
      ++counts.unattributed;
    } else {
      write_event(session, c.t, c.thread, e, w);
      ++counts.events;
    }
    push(c.thread, c.next + 1);
  }
  std::uint64_t end = session.duration_ns();
  for (std::uint64_t t : last) end = std::max(end, t);
  if (row.result == "violation") w.violation(end, -1, row.property, row.message);
  w.end(end, counts.events, row.result);
  return counts;
}

}  // namespace lockstep::driver
