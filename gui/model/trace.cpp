#include "gui/model/trace.hpp"

#include "gui/model/event_reader.hpp"
#include "trace/label_event.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lockstep::view {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kFormat = "lockstep-trace";
constexpr std::int64_t kReadableVersion = 1;
constexpr std::int64_t kMaxIndex = EventReader::kMaxIndex;

[[noreturn]] void fail(std::size_t line, std::string_view what) { throw TraceError(line, std::string(what)); }

ThreadState parse_state(std::string_view s) {
  if (s == "ready") return ThreadState::ready;
  if (s == "running") return ThreadState::running;
  if (s == "parked") return ThreadState::parked;
  if (s == "spinning") return ThreadState::spinning;
  if (s == "finished") return ThreadState::finished;
  return ThreadState::unknown;  // a later revision's state: shown, not rejected
}

LockEvent::Act parse_lock_act(const EventReader& f) {
  const std::string_view act = f.text("act");
  if (act == "wait") return LockEvent::Act::wait;
  if (act == "acquire") return LockEvent::Act::acquire;
  if (act == "release") return LockEvent::Act::release;
  fail(f.line(), fmt::format("'act' of a lock event is \"{}\", not wait, acquire or release", act));
}

// A memory operation's `st`: one of the line states docs/traces.md lists.
char parse_line_state(const EventReader& f) {
  const std::string_view st = f.text("st");
  if (st.size() == 1 && std::string_view("MOESF").find(st[0]) != std::string_view::npos) return st[0];
  fail(f.line(), fmt::format("'st' of an operation is \"{}\", not M, O, E, S or F", st));
}

FutexEvent::Act parse_futex_act(const EventReader& f) {
  const std::string_view act = f.text("act");
  if (act == "enqueue") return FutexEvent::Act::enqueue;
  if (act == "dequeue") return FutexEvent::Act::dequeue;
  fail(f.line(), fmt::format("'act' of a futex event is \"{}\", not enqueue or dequeue", act));
}

// "futex_wait > lock the bucket", interned.
std::string_view step_path(const std::vector<std::string>& open) {
  std::string path;
  for (const std::string& s : open) path += (path.empty() ? "" : " > ") + s;
  return intern_name(path);
}

struct StateChange {
  std::uint64_t t;
  ThreadState state;
};

struct CpuChange {
  std::uint64_t t;
  int thread;
};

template <typename T>
void grow(std::vector<T>& v, int index) {
  if (static_cast<std::size_t>(index) >= v.size()) v.resize(static_cast<std::size_t>(index) + 1);
}

// Thread intervals from the state changes (docs/traces.md, "Intervals").
std::vector<StateInterval> thread_intervals(std::vector<StateChange> changes, std::uint64_t end,
                                            std::optional<std::uint64_t>* finished_at) {
  std::stable_sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
  std::vector<StateInterval> out;
  std::optional<StateInterval> open = StateInterval{0, 0, ThreadState::ready};
  for (const StateChange& c : changes) {
    if (open && open->state == c.state) continue;
    if (open) {
      open->end = c.t;
      if (open->end > open->begin) out.push_back(*open);  // zero-length intervals are left out
    }
    open.reset();
    if (c.state != ThreadState::finished) open = StateInterval{c.t, c.t, c.state};
    *finished_at = c.state == ThreadState::finished ? std::optional(c.t) : std::nullopt;
  }
  if (open) {
    open->end = std::max(end, open->begin);
    out.push_back(*open);
  }
  return out;
}

std::vector<CpuInterval> cpu_intervals(std::vector<CpuChange> changes, std::uint64_t end) {
  std::stable_sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
  std::vector<CpuInterval> out;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (changes[i].thread < 0) continue;
    const std::uint64_t until = i + 1 < changes.size() ? changes[i + 1].t : std::max(end, changes[i].t);
    out.push_back(CpuInterval{changes[i].t, until, changes[i].thread});
  }
  return out;
}

// Sorts operations by time, stably. A timed trace comes nearly sorted per thread but
// interleaved out of order across threads; sorting 4-byte indices and moving each
// operation once is several times faster than a merge sort moving the operations.
void sort_by_time(std::vector<Operation>& ops) {
  const auto earlier = [](const Operation& a, const Operation& b) { return a.t < b.t; };
  if (std::is_sorted(ops.begin(), ops.end(), earlier)) return;
  std::vector<std::uint32_t> order(ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return ops[a].t < ops[b].t; });
  std::vector<Operation> sorted;
  sorted.reserve(ops.size());
  for (std::uint32_t i : order) sorted.push_back(std::move(ops[i]));
  ops = std::move(sorted);
}

}  // namespace

TraceError::TraceError(std::size_t line, const std::string& what)
    : std::runtime_error(line == 0 ? what : fmt::format("line {}: {}", line, what)), line_(line), detail_(what) {}

std::string_view to_string(ThreadState s) {
  switch (s) {
    case ThreadState::ready: return "ready";
    case ThreadState::running: return "running";
    case ThreadState::parked: return "parked";
    case ThreadState::spinning: return "spinning";
    case ThreadState::finished: return "finished";
    case ThreadState::unknown: break;
  }
  return "unknown";
}

std::string_view to_string(LockEvent::Act a) {
  switch (a) {
    case LockEvent::Act::wait: return "wait";
    case LockEvent::Act::acquire: return "acquire";
    case LockEvent::Act::release: return "release";
  }
  return "?";
}

std::string_view to_string(FutexEvent::Act a) { return a == FutexEvent::Act::enqueue ? "enqueue" : "dequeue"; }

namespace {

// `padded`: the file's text followed by simdjson's padding (EventReader::read).
Trace parse_padded(const simdjson::padded_string& padded) {
  Trace trace;
  std::vector<std::vector<StateChange>> state_changes;
  std::vector<std::vector<CpuChange>> cpu_changes;
  std::vector<std::vector<std::string>> open_steps;  // per thread, its open protocol steps
  bool header_seen = false;
  bool ended = false;
  std::size_t number = 0;
  std::size_t last_line = 0;

  const std::string_view all(padded.data(), padded.size());
  EventReader f;
  // Most lines of a big trace are operations: room for all of them up front, so the vector
  // never copies its (large) contents while growing.
  trace.ops.reserve(static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n')));
  for (std::size_t pos = 0; pos < all.size() && !ended;) {
    const std::size_t nl = all.find('\n', pos);
    const std::size_t stop = nl == std::string_view::npos ? all.size() : nl;
    const std::string_view line = all.substr(pos, stop - pos);
    pos = stop + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    last_line = number;

    if (!header_seen) {
      header_seen = true;
      const Json event = Json::parse(line, nullptr, false);
      if (event.is_discarded()) {
        if (nl == std::string_view::npos) fail(number, "the last line is cut off (the file is truncated)");
        fail(number, "not valid JSON");
      }
      if (!event.is_object()) fail(number, "an event must be a JSON object");
      if (!event.contains("format") || event["format"] != kFormat)
        fail(number, fmt::format("not a lockstep trace (the header must have \"format\":\"{}\")", kFormat));
      const bool readable = event.contains("version") && event["version"].is_number_integer() &&
                            event["version"].get<std::int64_t>() == kReadableVersion;
      if (!readable)
        fail(number, fmt::format("unsupported trace version {} (this viewer reads version {})",
                                 event.contains("version") ? event["version"].dump() : "(none)",
                                 kReadableVersion));
      auto str = [&](const char* key) {
        return event.contains(key) && event[key].is_string() ? event[key].get<std::string>() : std::string();
      };
      auto num = [&](const char* key) -> std::optional<std::uint64_t> {
        if (event.contains(key) && event[key].is_number_unsigned()) return event[key].get<std::uint64_t>();
        return std::nullopt;
      };
      trace.scenario = str("scenario");
      trace.name = str("name");
      trace.strategy = str("strategy");
      trace.memory_model = str("memory_model");
      trace.seed = num("seed");
      trace.execution = num("execution");
      if (event.contains("node_of_cpu") && event["node_of_cpu"].is_array()) {
        const Json& nodes = event["node_of_cpu"];
        if (static_cast<std::int64_t>(nodes.size()) > kMaxIndex) fail(number, "'node_of_cpu' is too long");
        trace.cpus.resize(nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          trace.cpus[i].id = static_cast<int>(i);
          trace.cpus[i].node = nodes[i].is_number_integer() ? nodes[i].get<int>() : -1;
        }
      }
      continue;
    }

    f.read(line, number, nl == std::string_view::npos);
    const std::uint64_t t = f.u64("t");
    const std::string_view ev = f.text("ev");
    if (ev == "label") {
      // Labels are few and may hold an array (`fields`), which the event reader skips: the
      // line is read again whole, by the reader the command line uses too.
      try {
        trace.names.add(trace::region_of_label(Json::parse(line)));
      } catch (const std::exception& e) {
        fail(number, e.what());
      }
    } else if (ev == "step") {
      const int th = f.index("th", false);
      grow(open_steps, th);
      const std::string_view act = f.text("act");
      if (act == "begin") {
        open_steps[th].emplace_back(f.text("what"));
      } else if (act == "end") {
        if (open_steps[th].empty()) fail(number, "a protocol step ends that did not begin");
        open_steps[th].pop_back();
      } else {
        fail(number, fmt::format("'act' of a step event is \"{}\", not begin or end", act));
      }
    } else if (ev == "thread") {
      const int th = f.index("th", false);
      grow(trace.threads, th);
      grow(state_changes, th);
      trace.threads[th].name = std::string(f.text("name"));
      trace.threads[th].cpu = f.has("cpu") ? f.index("cpu", true) : -1;
    } else if (ev == "cpu") {
      const int cpu = f.index("cpu", false);
      grow(cpu_changes, cpu);
      cpu_changes[cpu].push_back(CpuChange{t, f.index("th", true)});
    } else if (ev == "state") {
      const int th = f.index("th", false);
      grow(state_changes, th);
      state_changes[th].push_back(StateChange{t, parse_state(f.text("state"))});
    } else if (ev == "op") {
      Operation op;
      op.line = number;
      op.t = t;
      op.thread = f.index("th", false);
      op.cpu = f.index("cpu", true);
      op.op = intern_name(f.text("op"));
      op.lat = f.has("lat") ? f.u64("lat") : 0;
      if (op.t + op.lat < op.t) fail(number, "the operation's 't' + 'lat' overflows 64 bits");
      if (op.op == "rmw") {
        op.rmw = intern_name(f.text("rmw"));
        op.old = f.u64("old");
        op.ok = f.flag("ok");
      }
      if (op.op == "unpark") {
        op.target = f.index("target", false);
        op.woke = f.flag("woke");
      }
      op.addr = f.opt_address("addr");
      op.size = f.opt_u64("size");
      op.val = f.opt_u64("val");
      if (f.has("src")) op.src = intern_name(f.text("src"));
      if (f.has("peer")) op.peer = f.index("peer", false);
      if (f.has("st")) op.state = parse_line_state(f);
      op.buffered = f.has("buf") && f.flag("buf");
      if (op.op != "drain" && op.thread < static_cast<int>(open_steps.size()) && !open_steps[op.thread].empty())
        op.step = step_path(open_steps[op.thread]);
      trace.ops.push_back(std::move(op));
    } else if (ev == "lock") {
      LockEvent lock{number, t, f.index("th", false), f.address("addr"), parse_lock_act(f), false};
      lock.shared = f.has("mode") && f.text("mode") == "shared";
      trace.locks.push_back(lock);
    } else if (ev == "syscall") {
      const std::string_view act = f.text("act");
      if (act != "enter" && act != "exit")
        fail(number, fmt::format("'act' of a syscall event is \"{}\", not enter or exit", act));
      trace.syscalls.push_back(SyscallEvent{number, t, f.index("th", false), act == "enter"});
    } else if (ev == "futex") {
      trace.futexes.push_back(FutexEvent{number, t, f.index("th", false), parse_futex_act(f), f.u64("bucket"),
                                         f.address("key"), f.index("waiter", false)});
    } else if (ev == "violation" || ev == "witness") {
      Finding found{number, t, ev == "violation" ? f.index("th", true) : -1, std::string(f.text("property")),
                    std::string(f.text("msg"))};
      (ev == "violation" ? trace.violation : trace.witness) = std::move(found);
    } else if (ev == "end") {
      trace.end_time = t;
      trace.end_steps = f.u64("steps");
      trace.outcome = std::string(f.text("outcome"));
      ended = true;  // events after `end` are ignored
    }
    // Other kinds belong to later revisions of version 1: ignored, as the format says.
  }
  if (!header_seen) fail(1, "empty file, not a lockstep trace");
  if (!ended)
    fail(last_line, "the trace is truncated: it ends without an 'end' event");

  // Threads and CPUs named by events but never declared still get lanes.
  for (const Operation& op : trace.ops) {
    grow(trace.threads, op.thread);
    if (op.cpu >= 0) grow(trace.cpus, op.cpu);
  }
  for (const LockEvent& l : trace.locks) grow(trace.threads, l.thread);
  for (const SyscallEvent& e : trace.syscalls) grow(trace.threads, e.thread);
  for (const FutexEvent& e : trace.futexes) {
    grow(trace.threads, e.thread);
    grow(trace.threads, e.waiter);
  }
  grow(state_changes, static_cast<int>(trace.threads.size()) - 1);
  grow(trace.threads, static_cast<int>(state_changes.size()) - 1);
  if (!cpu_changes.empty()) grow(trace.cpus, static_cast<int>(cpu_changes.size()) - 1);
  for (std::size_t i = 0; i < trace.threads.size(); ++i) {
    Thread& th = trace.threads[i];
    th.id = static_cast<int>(i);
    if (th.name.empty()) th.name = fmt::format("thread {}", i);
    th.intervals = thread_intervals(std::move(state_changes[i]), trace.end_time, &th.finished_at);
  }
  for (std::size_t i = 0; i < trace.cpus.size(); ++i) {
    trace.cpus[i].id = static_cast<int>(i);
    if (i < cpu_changes.size()) trace.cpus[i].intervals = cpu_intervals(std::move(cpu_changes[i]), trace.end_time);
  }
  if (trace.ops.size() > std::numeric_limits<std::uint32_t>::max()) fail(0, "more than 4 billion operations");
  sort_by_time(trace.ops);
  const auto by_time = [](const auto& a, const auto& b) { return a.t < b.t; };
  std::stable_sort(trace.locks.begin(), trace.locks.end(), by_time);
  std::stable_sort(trace.futexes.begin(), trace.futexes.end(), by_time);
  std::stable_sort(trace.syscalls.begin(), trace.syscalls.end(), by_time);

  trace.ops_by_thread.assign(trace.threads.size(), {});
  trace.op_times_by_thread.assign(trace.threads.size(), {});
  trace.op_ends_by_thread.assign(trace.threads.size(), {});
  trace.longest_op_by_thread.assign(trace.threads.size(), 0);
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const auto th = static_cast<std::size_t>(trace.ops[i].thread);
    trace.ops_by_thread[th].push_back(static_cast<std::uint32_t>(i));
    trace.op_times_by_thread[th].push_back(trace.ops[i].t);
    trace.op_ends_by_thread[th].push_back(trace.ops[i].t + trace.ops[i].lat);
    trace.longest_op_by_thread[th] = std::max(trace.longest_op_by_thread[th], trace.ops[i].lat);
  }

  // Wake edges: an unpark that woke its target, to the target's next running interval.
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const Operation& op = trace.ops[i];
    if (op.op != "unpark" || !op.woke.value_or(false) || !op.target) continue;
    if (*op.target >= static_cast<int>(trace.threads.size())) continue;
    for (const StateInterval& iv : trace.threads[*op.target].intervals) {
      if (iv.state == ThreadState::running && iv.begin >= op.t) {
        trace.wakes.push_back(WakeEdge{i, op.thread, *op.target, op.t, iv.begin});
        break;
      }
    }
  }

  // Steps: every operation, then the finding at its time (after the operations at that time).
  for (std::size_t i = 0; i < trace.ops.size(); ++i) trace.steps.push_back(Step{Step::Kind::op, i, trace.ops[i].t});
  auto add_finding = [&](const std::optional<Finding>& found, Step::Kind kind) {
    if (!found) return;
    const auto at = std::upper_bound(trace.steps.begin(), trace.steps.end(), found->t,
                                     [](std::uint64_t t, const Step& s) { return t < s.t; });
    trace.steps.insert(at, Step{kind, 0, found->t});
  };
  add_finding(trace.violation, Step::Kind::violation);
  add_finding(trace.witness, Step::Kind::witness);
  return trace;
}

}  // namespace

std::string_view intern_name(std::string_view name) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> names;
  const std::lock_guard lock(mutex);
  auto it = names.find(name);
  if (it == names.end()) it = names.emplace(name).first;
  return *it;
}

Trace parse_trace(std::string_view text) { return parse_padded(simdjson::padded_string(text)); }

Trace parse_padded_trace(const simdjson::padded_string& text) { return parse_padded(text); }

simdjson::padded_string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw TraceError(0, fmt::format("{}: cannot open the file", path.string()));
  const std::streamoff size = in.tellg();
  if (size < 0) throw TraceError(0, fmt::format("{}: cannot read the file", path.string()));
  simdjson::padded_string text(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(text.data(), size)) throw TraceError(0, fmt::format("{}: cannot read the file", path.string()));
  return text;
}

Trace load_trace(const std::filesystem::path& path) {
  const simdjson::padded_string text = read_file(path);
  try {
    return parse_padded(text);
  } catch (const TraceError& e) {
    // "FILE, line N: what", the line kept for callers that want it.
    TraceError named(e.line(), e.detail());
    throw TraceError(0, fmt::format("{}, {}", path.string(), named.what())).with_line(e.line());
  }
}

const Thread* Trace::thread(int id) const {
  return id >= 0 && id < static_cast<int>(threads.size()) ? &threads[static_cast<std::size_t>(id)] : nullptr;
}

std::string Trace::thread_name(int id) const {
  const Thread* th = thread(id);
  return th ? th->name : (id < 0 ? std::string("(no thread)") : fmt::format("thread {}", id));
}

std::string Trace::address_name(std::uint64_t addr) const { return names.name_of(addr); }

std::string Trace::describe(const Operation& op) const {
  std::string s = fmt::format("{}: {}{}", thread_name(op.thread), op.step.empty() ? "" : fmt::format("{}: ", op.step),
                              op.rmw.empty() ? op.op : op.rmw);
  if (op.addr) s += " " + address_name(*op.addr);
  if (op.op == "rmw") {
    s += fmt::format(" {} -> {}", op.old.value_or(0), op.val.value_or(0));
    if (op.ok && !*op.ok) s += " (failed)";
  } else if (op.val) {
    s += fmt::format(" {} {}", op.op.find("load") != std::string::npos ? "->" : "=", *op.val);
  }
  if (op.target) s += fmt::format(" {} ({})", thread_name(*op.target), op.woke.value_or(false) ? "woke it" : "not parked");
  s += fmt::format("  [t {} ns, lat {} ns, cpu {}", op.t, op.lat, op.cpu);
  if (op.buffered) s += ", into the store buffer";
  if (!op.src.empty()) s += fmt::format(", from {}{}", op.src, op.peer ? fmt::format(" of cpu {}", *op.peer) : "");
  if (op.state != 0) s += fmt::format(", line now {}", op.state);
  s += "]";
  return s;
}

std::string Trace::describe(const Step& step) const {
  switch (step.kind) {
    case Step::Kind::op: return describe(ops.at(step.op));
    case Step::Kind::violation:
      return fmt::format("VIOLATION {} by {}: {}  [t {} ns]", violation->property, thread_name(violation->thread),
                         violation->msg, violation->t);
    case Step::Kind::witness:
      return fmt::format("WITNESS {}: {}  [t {} ns]", witness->property, witness->msg, witness->t);
  }
  return {};
}

}  // namespace lockstep::view
