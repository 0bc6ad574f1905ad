#include "gui/model/step_state.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::view {

namespace {

// Events are ordered by (t, line in the file): ops are sorted by t stably, so among equal
// times the file's (causal) order decides, and lock and futex events slot in the same way.
struct Point {
  std::uint64_t t;
  std::size_t line;
  friend bool operator<=(const Point& a, const Point& b) { return a.t < b.t || (a.t == b.t && a.line <= b.line); }
};

void apply_op(const Trace& trace, std::size_t index, StepState& s, bool current) {
  const Operation& op = trace.ops[index];
  if (op.thread >= 0 && op.thread < static_cast<int>(s.threads.size())) s.threads[op.thread].last_op = index;
  if (!op.addr || op.thread < 0 || op.thread >= static_cast<int>(s.store_buffers.size())) return;
  auto& buffer = s.store_buffers[static_cast<std::size_t>(op.thread)];
  const std::uint64_t size = op.size.value_or(8);
  if ((op.op == "store" || op.op == "plain_store") && op.buffered) {
    buffer.push_back(BufferedEntry{*op.addr, size, op.val.value_or(0)});  // memory unchanged until the drain
    return;
  }
  if (op.op == "drain") {
    // The oldest entry for that address reached memory.
    const auto it =
        std::find_if(buffer.begin(), buffer.end(), [&](const BufferedEntry& e) { return e.addr == *op.addr; });
    if (it != buffer.end()) buffer.erase(it);
  }
  const bool is_write = op.op == "store" || op.op == "plain_store" || op.op == "drain" || op.op == "rmw";
  // A load forwarded from the thread's own buffer says nothing about memory.
  const bool forwarded = !is_write && std::any_of(buffer.begin(), buffer.end(),
                                                  [&](const BufferedEntry& e) { return e.addr == *op.addr; });
  if (!op.val || forwarded) return;
  MemoryCell& cell = s.memory[*op.addr];
  cell.size = size;
  cell.value = *op.val;
  if (is_write) cell.writer = op.thread;
  cell.this_step = current;
}

void apply_lock(const LockEvent& e, StepState& s) {
  auto& waiters = s.lock_waiters[e.addr];
  auto& holders = s.lock_holders[e.addr];
  switch (e.act) {
    case LockEvent::Act::wait:
      if (std::find(waiters.begin(), waiters.end(), e.thread) == waiters.end()) waiters.push_back(e.thread);
      break;
    case LockEvent::Act::acquire:
      waiters.erase(std::remove(waiters.begin(), waiters.end(), e.thread), waiters.end());
      holders.push_back(Holder{e.thread, e.shared});
      break;
    case LockEvent::Act::release: {
      const auto it =
          std::find_if(holders.begin(), holders.end(), [&](const Holder& h) { return h.thread == e.thread; });
      if (it != holders.end()) holders.erase(it);
      break;
    }
  }
  if (waiters.empty()) s.lock_waiters.erase(e.addr);
  if (holders.empty()) s.lock_holders.erase(e.addr);
}

void apply_futex(const FutexEvent& e, StepState& s) {
  auto& queue = s.futex_queues[e.bucket];
  if (e.act == FutexEvent::Act::enqueue) {
    queue.push_back(QueuedWaiter{e.waiter, e.key});
  } else {
    const auto it =
        std::find_if(queue.begin(), queue.end(), [&](const QueuedWaiter& w) { return w.waiter == e.waiter; });
    if (it != queue.end()) queue.erase(it);
  }
  if (queue.empty()) s.futex_queues.erase(e.bucket);
}

ThreadState state_of(const Thread& th, std::uint64_t t) {
  if (th.finished_at && t >= *th.finished_at) return ThreadState::finished;
  // The last interval begun at or before t (intervals are contiguous).
  const auto it = std::upper_bound(th.intervals.begin(), th.intervals.end(), t,
                                   [](std::uint64_t x, const StateInterval& iv) { return x < iv.begin; });
  if (it == th.intervals.begin()) return ThreadState::ready;
  const StateInterval& iv = *(it - 1);
  return iv.state;
}

}  // namespace

StepState state_at(const Trace& trace, std::size_t step) {
  if (step >= trace.steps.size()) throw std::out_of_range(fmt::format("step {} of {}", step, trace.steps.size()));
  const Step& st = trace.steps[step];
  StepState s;
  s.t = st.t;
  s.threads.resize(trace.threads.size());
  for (std::size_t i = 0; i < trace.threads.size(); ++i) s.threads[i].id = static_cast<int>(i);
  s.store_buffers.resize(trace.threads.size());

  // Up to which point: an operation's own (t, line); a finding after everything at its time.
  std::size_t last_op = 0;  // ops [0, last_op) apply
  Point until{st.t, 0};
  if (st.kind == Step::Kind::op) {
    last_op = st.op + 1;
    until.line = trace.ops[st.op].line;
  } else {
    last_op = static_cast<std::size_t>(std::upper_bound(trace.ops.begin(), trace.ops.end(), st.t,
                                                        [](std::uint64_t t, const Operation& o) { return t < o.t; }) -
                                       trace.ops.begin());
    until.line = static_cast<std::size_t>(-1);
    s.at_violation = st.kind == Step::Kind::violation;
    s.at_witness = st.kind == Step::Kind::witness;
  }
  for (std::size_t i = 0; i < last_op; ++i) apply_op(trace, i, s, st.kind == Step::Kind::op && i == st.op);
  for (const LockEvent& e : trace.locks) {
    if (!(Point{e.t, e.line} <= until)) break;
    apply_lock(e, s);
  }
  for (const FutexEvent& e : trace.futexes) {
    if (!(Point{e.t, e.line} <= until)) break;
    apply_futex(e, s);
  }
  for (std::size_t i = 0; i < trace.threads.size(); ++i) s.threads[i].state = state_of(trace.threads[i], s.t);
  return s;
}

std::string describe(const Trace& trace, const StepState& s) {
  std::string out = fmt::format("t = {} ns{}\n\nthreads:\n", s.t,
                                s.at_violation ? "  (the violation)" : (s.at_witness ? "  (the witness)" : ""));
  for (const ThreadAtStep& th : s.threads) {
    out += fmt::format("  {}: {}", trace.thread_name(th.id), to_string(th.state));
    if (th.last_op) out += fmt::format(", last: {}", trace.describe(trace.ops[*th.last_op]));
    out += "\n";
  }
  out += "\nmemory:\n";
  for (const auto& [addr, cell] : s.memory)
    out += fmt::format("  {}{} = {}{}\n", cell.this_step ? "* " : "  ", trace.address_name(addr), cell.value,
                       cell.writer >= 0 ? fmt::format("  (written by {})", trace.thread_name(cell.writer)) : "");
  bool any_buffer = false;
  for (std::size_t i = 0; i < s.store_buffers.size(); ++i) {
    if (s.store_buffers[i].empty()) continue;
    if (!any_buffer) out += "\nstore buffers (oldest first):\n";
    any_buffer = true;
    out += fmt::format("  {}:", trace.thread_name(static_cast<int>(i)));
    for (const BufferedEntry& e : s.store_buffers[i])
      out += fmt::format(" [{} = {}]", trace.address_name(e.addr), e.value);
    out += "\n";
  }
  if (!s.lock_holders.empty() || !s.lock_waiters.empty()) out += "\nlocks:\n";
  for (const auto& [addr, holders] : s.lock_holders) {
    out += fmt::format("  {} held by", trace.address_name(addr));
    for (const Holder& h : holders)
      out += fmt::format(" {}{}", trace.thread_name(h.thread), h.shared ? " (shared)" : "");
    out += "\n";
  }
  for (const auto& [addr, waiters] : s.lock_waiters) {
    out += fmt::format("  {} waited for by", trace.address_name(addr));
    for (int w : waiters) out += " " + trace.thread_name(w);
    out += "\n";
  }
  if (!s.futex_queues.empty()) out += "\nfutex buckets:\n";
  for (const auto& [bucket, queue] : s.futex_queues) {
    out += fmt::format("  bucket {}:", bucket);
    for (const QueuedWaiter& w : queue)
      out += fmt::format(" {} on {}", trace.thread_name(w.waiter), trace.address_name(w.key));
    out += "\n";
  }
  return out;
}

}  // namespace lockstep::view
