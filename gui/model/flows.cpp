#include "gui/model/flows.hpp"

#include <algorithm>
#include <map>

namespace lockstep::view {

namespace {

int node_of(const Trace& trace, int cpu) {
  return cpu >= 0 && cpu < static_cast<int>(trace.cpus.size()) ? trace.cpus[static_cast<std::size_t>(cpu)].node : -1;
}

bool writes(const Operation& op) {
  if (op.op == "store" || op.op == "plain_store") return !op.buffered;  // buffered: lands with its drain
  if (op.op == "drain") return true;
  return op.op == "rmw" && op.old != op.val;
}

void add_lock_handoffs(const Trace& trace, std::vector<Flow>& out) {
  struct LockState {
    int holders = 0;
    std::optional<LockEvent> last_release;  // pending: handed to the next acquirer
  };
  std::map<std::uint64_t, LockState> locks;  // ordered: deterministic, whatever the addresses
  for (const LockEvent& e : trace.locks) {
    LockState& s = locks[e.addr];
    if (e.act == LockEvent::Act::release) {
      s.holders = std::max(0, s.holders - 1);
      if (s.holders == 0) s.last_release = e;
    } else if (e.act == LockEvent::Act::acquire) {
      if (s.last_release && s.last_release->thread != e.thread) {
        const int a = trace.thread(s.last_release->thread) ? trace.threads[s.last_release->thread].cpu : -1;
        const int b = trace.thread(e.thread) ? trace.threads[e.thread].cpu : -1;
        const int na = node_of(trace, a);
        const int nb = node_of(trace, b);
        out.push_back(Flow{FlowKind::lock_handoff, s.last_release->thread, e.thread, s.last_release->t, e.t, e.addr,
                           na >= 0 && nb >= 0 && na != nb});
      }
      s.last_release.reset();
      ++s.holders;
    }
  }
}

void add_line_transfers(const Trace& trace, std::uint64_t line_bytes, std::vector<Flow>& out) {
  struct Writer {
    int thread;
    int cpu;
  };
  std::map<std::uint64_t, Writer> last_writer;  // per line
  for (const Operation& op : trace.ops) {
    if (!op.addr) continue;
    const std::uint64_t line = *op.addr / line_bytes * line_bytes;
    if (op.src == "remote_cache" || op.src == "same_package_core") {
      int from = -1;
      int from_cpu = op.peer.value_or(-1);
      if (const auto it = last_writer.find(line); it != last_writer.end() && it->second.thread != op.thread) {
        from = it->second.thread;
        if (from_cpu < 0) from_cpu = it->second.cpu;
      } else if (op.peer) {
        for (const Thread& th : trace.threads)
          if (th.cpu == *op.peer && th.id != op.thread) from = th.id;
      }
      if (from >= 0) {
        const int na = node_of(trace, from_cpu);
        const int nb = node_of(trace, op.cpu);
        // A transfer ends when the data arrives: the access's end.
        out.push_back(Flow{FlowKind::line_transfer, from, op.thread, op.t, op.t + op.lat, line,
                           op.src == "remote_cache" || (na >= 0 && nb >= 0 && na != nb)});
      }
    }
    if (writes(op)) last_writer[line] = Writer{op.thread, op.cpu};
  }
}

}  // namespace

std::string_view to_string(FlowKind k) {
  switch (k) {
    case FlowKind::wake:
      return "wake";
    case FlowKind::lock_handoff:
      return "lock hand-off";
    case FlowKind::line_transfer:
      return "cache-line transfer";
  }
  return "?";
}

FlowSet derive_flows(const Trace& trace, std::uint64_t line_bytes) {
  std::vector<Flow> out;
  for (const WakeEdge& w : trace.wakes) {
    const Operation& op = trace.ops[w.op];
    const int target_cpu = trace.thread(w.to) ? trace.threads[static_cast<std::size_t>(w.to)].cpu : -1;
    const int na = node_of(trace, op.cpu);
    const int nb = node_of(trace, target_cpu);
    out.push_back(Flow{FlowKind::wake, w.from, w.to, w.t_unpark, w.t_running, 0, na >= 0 && nb >= 0 && na != nb});
  }
  add_lock_handoffs(trace, out);
  add_line_transfers(trace, line_bytes == 0 ? 64 : line_bytes, out);
  std::stable_sort(out.begin(), out.end(), [](const Flow& a, const Flow& b) { return a.t_from < b.t_from; });
  FlowSet set;
  for (const Flow& f : out) set.longest_ns = std::max(set.longest_ns, f.t_to > f.t_from ? f.t_to - f.t_from : 0);
  set.flows = std::move(out);
  return set;
}

VisibleFlows visible_flows(const FlowSet& set, double t0, double t1, const FlowFilter& filter) {
  std::vector<const Flow*> matching;
  // No flow starting before t0 - longest can reach the window.
  const double from = t0 - static_cast<double>(set.longest_ns);
  auto it = std::lower_bound(set.flows.begin(), set.flows.end(), from,
                             [](const Flow& f, double t) { return static_cast<double>(f.t_from) < t; });
  for (; it != set.flows.end(); ++it) {
    const Flow& f = *it;
    if (static_cast<double>(f.t_from) > t1) break;  // sorted by t_from
    if (static_cast<double>(std::max(f.t_from, f.t_to)) < t0) continue;
    const bool kind_on = (f.kind == FlowKind::wake && filter.wake) ||
                         (f.kind == FlowKind::lock_handoff && filter.lock_handoff) ||
                         (f.kind == FlowKind::line_transfer && filter.line_transfer);
    if (!kind_on) continue;
    if (filter.cross_node_only && !f.cross_node) continue;
    if (filter.thread && f.from != *filter.thread && f.to != *filter.thread) continue;
    if (filter.addr && f.addr != *filter.addr) continue;
    matching.push_back(&f);
  }
  VisibleFlows v;
  v.matching = matching.size();
  if (matching.size() <= filter.cap || filter.cap == 0) {
    v.shown = filter.cap == 0 ? std::vector<const Flow*>{} : std::move(matching);
    return v;
  }
  const double stride = static_cast<double>(matching.size()) / static_cast<double>(filter.cap);
  for (std::size_t i = 0; i < filter.cap; ++i) v.shown.push_back(matching[static_cast<std::size_t>(i * stride)]);
  return v;
}

}  // namespace lockstep::view
