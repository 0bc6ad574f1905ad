#include "gui/model/trace.hpp"

#include "trace/format.hpp"
#include "trace/reader.hpp"

#include <algorithm>
#include <array>
#include <atomic>
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

namespace field = trace::field;
using trace::Event;
using trace::EventKind;

ThreadState parse_state(std::string_view s) {
  const std::optional<trace::ThreadState> state = trace::parse_thread_state(s);
  if (!state) return ThreadState::unknown;  // a later revision's state: shown, not rejected
  switch (*state) {
    case trace::ThreadState::ready:
      return ThreadState::ready;
    case trace::ThreadState::running:
      return ThreadState::running;
    case trace::ThreadState::parked:
      return ThreadState::parked;
    case trace::ThreadState::spinning:
      return ThreadState::spinning;
    case trace::ThreadState::finished:
      break;
  }
  return ThreadState::finished;
}

LockEvent::Act parse_lock_act(const Event& f) {
  const std::string_view act = f.text(field::act);
  const std::optional<trace::LockAct> parsed = trace::parse_lock_act(act);
  if (!parsed) f.fail(fmt::format("'act' of a lock event is \"{}\", not wait, acquire or release", act));
  if (*parsed == trace::LockAct::wait) return LockEvent::Act::wait;
  return *parsed == trace::LockAct::acquire ? LockEvent::Act::acquire : LockEvent::Act::release;
}

// A memory operation's `st`: one of the line states docs/traces.md lists.
char parse_line_state(const Event& f) {
  const std::string_view st = f.text(field::st);
  if (st.size() == 1 && trace::kLineStates.find(st[0]) != std::string_view::npos) return st[0];
  f.fail(fmt::format("'st' of an operation is \"{}\", not M, O, E, S or F", st));
}

FutexEvent::Act parse_futex_act(const Event& f) {
  const std::string_view act = f.text(field::act);
  const std::optional<trace::FutexAct> parsed = trace::parse_futex_act(act);
  if (!parsed) f.fail(fmt::format("'act' of a futex event is \"{}\", not enqueue or dequeue", act));
  return *parsed == trace::FutexAct::enqueue ? FutexEvent::Act::enqueue : FutexEvent::Act::dequeue;
}

// "futex_wait > lock the bucket".
std::string step_path(const std::vector<std::string>& open) {
  std::string path;
  for (const std::string& s : open) path += (path.empty() ? "" : " > ") + s;
  return path;
}

// A name interned for an event's record; too many distinct names fail at the event's line.
Name name_of(const trace::Event& f, std::string_view text) {
  try {
    return Name(text);
  } catch (const std::length_error& e) {
    f.fail(e.what());
  }
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

std::string_view to_string(ThreadState s) {
  switch (s) {
    case ThreadState::ready:
      return "ready";
    case ThreadState::running:
      return "running";
    case ThreadState::parked:
      return "parked";
    case ThreadState::spinning:
      return "spinning";
    case ThreadState::finished:
      return "finished";
    case ThreadState::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(LockEvent::Act a) {
  switch (a) {
    case LockEvent::Act::wait:
      return "wait";
    case LockEvent::Act::acquire:
      return "acquire";
    case LockEvent::Act::release:
      return "release";
  }
  return "?";
}

std::string_view to_string(FutexEvent::Act a) { return a == FutexEvent::Act::enqueue ? "enqueue" : "dequeue"; }

namespace {

// Counts the lines that hold `"op"`: every operation's line does (its `ev` and its `op`), so
// for a trace the writer wrote this is the number of operations, and room for them is
// reserved up front (the vector never copies its contents while growing, and holds no
// room for the other events). Fed a text a piece at a time.
class OperationLines {
 public:
  void feed(std::string_view text) {
    for (const char c : text) {
      if (c == '\n') {
        found_ = false;
        tail_ = 0;
        continue;
      }
      tail_ = (tail_ << 8) | static_cast<unsigned char>(c);
      if (!found_ && tail_ == kPattern) {
        found_ = true;
        ++lines_;
      }
    }
  }
  std::size_t lines() const { return lines_; }

 private:
  static constexpr std::uint32_t kPattern =
      (std::uint32_t{'"'} << 24) | (std::uint32_t{'o'} << 16) | (std::uint32_t{'p'} << 8) | '"';
  std::uint32_t tail_ = 0;  // the last four bytes of the line so far
  bool found_ = false;
  std::size_t lines_ = 0;
};

// The events `reader` hands out, with room reserved for `operations` of them.
Trace parse_events(trace::Reader& reader, std::size_t operations) {
  Trace trace;
  std::vector<std::vector<StateChange>> state_changes;
  std::vector<std::vector<CpuChange>> cpu_changes;
  std::vector<std::vector<std::string>> open_steps;             // per thread, its open protocol steps
  std::vector<std::map<std::string, std::uint64_t>> outermost;  // per thread, its outermost steps begun

  trace.ops.reserve(operations);
  {
    const auto& header = reader.header();
    const std::size_t number = reader.header_line();
    auto str = [&](std::string_view key) {
      const auto it = header.find(std::string(key));
      return it != header.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto num = [&](std::string_view key) -> std::optional<std::uint64_t> {
      const auto it = header.find(std::string(key));
      if (it != header.end() && it->is_number_unsigned()) return it->get<std::uint64_t>();
      return std::nullopt;
    };
    trace.native = reader.platform() == trace::TracePlatform::native;
    trace.clock = str(field::clock);
    trace.dropped_events = num(field::dropped_events).value_or(0);
    trace.sample = std::max<std::uint64_t>(1, num(field::sample).value_or(1));
    trace.scenario = str(field::scenario);
    trace.name = str(field::name);
    trace.strategy = str(field::strategy);
    trace.memory_model = str(field::memory_model);
    trace.seed = num(field::seed);
    trace.execution = num(field::execution);
    if (const auto nodes = header.find(std::string(field::node_of_cpu)); nodes != header.end() && nodes->is_array()) {
      if (static_cast<std::int64_t>(nodes->size()) > trace::kMaxIndex)
        reader.fail(number, fmt::format("'{}' is too long", field::node_of_cpu));
      trace.cpus.resize(nodes->size());
      for (std::size_t i = 0; i < nodes->size(); ++i) {
        trace.cpus[i].id = static_cast<int>(i);
        trace.cpus[i].node = (*nodes)[i].is_number_integer() ? (*nodes)[i].get<int>() : -1;
      }
    }
  }

  while (reader.next()) {  // events after `end` are not read
    const Event& f = reader.event();
    const std::size_t number = f.line();
    const std::uint64_t t = f.time();
    const EventKind kind = f.kind();
    trace.events += kind != EventKind::label && kind != EventKind::thread && kind != EventKind::end ? 1 : 0;
    switch (kind) {
      case EventKind::label:
        try {
          trace.names.add(f.region());
        } catch (const std::invalid_argument& e) {
          f.fail(e.what());
        }
        break;
      case EventKind::step: {
        const int th = f.index(field::th, false);
        grow(open_steps, th);
        const std::string_view act = f.text(field::act);
        const std::optional<trace::StepAct> parsed = trace::parse_step_act(act);
        if (parsed == trace::StepAct::begin) {
          if (open_steps[th].empty()) {
            grow(outermost, th);
            outermost[th][std::string(f.text(field::what))]++;
          }
          open_steps[th].emplace_back(f.text(field::what));
        } else if (parsed == trace::StepAct::end) {
          if (open_steps[th].empty()) f.fail("a protocol step ends that did not begin");
          open_steps[th].pop_back();
        } else {
          f.fail(fmt::format("'act' of a step event is \"{}\", not begin or end", act));
        }
        break;
      }
      case EventKind::thread: {
        const int th = f.index(field::th, false);
        grow(trace.threads, th);
        grow(state_changes, th);
        trace.threads[th].name = std::string(f.text(field::name));
        trace.threads[th].cpu = f.has(field::cpu) ? f.index(field::cpu, true) : -1;
        trace.threads[th].dropped = f.opt_u64(field::dropped).value_or(0);
        break;
      }
      case EventKind::cpu: {
        const int cpu = f.index(field::cpu, false);
        grow(cpu_changes, cpu);
        cpu_changes[cpu].push_back(CpuChange{t, f.index(field::th, true)});
        break;
      }
      case EventKind::state: {
        const int th = f.index(field::th, false);
        grow(state_changes, th);
        state_changes[th].push_back(StateChange{t, parse_state(f.text(field::state))});
        break;
      }
      case EventKind::op: {
        Operation op;
        if (number > std::numeric_limits<std::uint32_t>::max()) f.fail("the viewer reads at most 2^32 - 1 lines");
        op.line = static_cast<std::uint32_t>(number);
        op.t = t;
        op.thread = f.index(field::th, false);
        op.cpu = f.index(field::cpu, true);
        op.op = name_of(f, f.text(field::op));
        op.lat = f.has(field::lat) ? f.u64(field::lat) : 0;
        if (op.t + op.lat < op.t) f.fail("the operation's 't' + 'lat' overflows 64 bits");
        if (op.op == trace::op::rmw) {
          op.rmw = name_of(f, f.text(field::rmw));
          op.old = f.u64(field::old);
          op.ok = f.flag(field::ok);
        }
        if (op.op == trace::op::unpark) {
          op.target = f.index(field::target, false);
          op.woke = f.flag(field::woke);
        }
        op.addr = f.opt_address(field::addr);
        if (const std::optional<std::uint64_t> size = f.opt_u64(field::size)) {
          if (*size > std::numeric_limits<std::uint32_t>::max())
            f.fail("'size' of an operation is over 2^32 - 1 bytes");
          op.size = static_cast<std::uint32_t>(*size);
        }
        op.val = f.opt_u64(field::val);
        if (f.has(field::src)) op.src = name_of(f, f.text(field::src));
        if (f.has(field::peer)) op.peer = f.index(field::peer, false);
        if (f.has(field::st)) op.state = parse_line_state(f);
        op.buffered = f.opt_flag(field::buf).value_or(false);
        if (op.op != trace::op::drain && op.thread < static_cast<int>(open_steps.size()) &&
            !open_steps[op.thread].empty())
          op.step = name_of(f, step_path(open_steps[op.thread]));
        trace.ops.push_back(std::move(op));
        break;
      }
      case EventKind::lock: {
        LockEvent lock{number, t, f.index(field::th, false), f.address(field::addr), parse_lock_act(f), false, {}};
        lock.shared = f.has(field::mode) && f.text(field::mode) == trace::kShared;
        if (f.has(field::site)) lock.site = name_of(f, f.text(field::site)).view();
        trace.locks.push_back(lock);
        break;
      }
      case EventKind::syscall: {
        const std::string_view act = f.text(field::act);
        const std::optional<trace::SyscallAct> parsed = trace::parse_syscall_act(act);
        if (!parsed) f.fail(fmt::format("'act' of a syscall event is \"{}\", not enter or exit", act));
        trace.syscalls.push_back(
            SyscallEvent{number, t, f.index(field::th, false), *parsed == trace::SyscallAct::enter});
        break;
      }
      case EventKind::futex:
        trace.futexes.push_back(FutexEvent{number, t, f.index(field::th, false), parse_futex_act(f),
                                           f.u64(field::bucket), f.address(field::key), f.index(field::waiter, false)});
        break;
      case EventKind::violation:
      case EventKind::witness: {
        const bool violation = f.kind() == EventKind::violation;
        Finding found{number, t, violation ? f.index(field::th, true) : -1, std::string(f.text(field::property)),
                      std::string(f.text(field::msg))};
        (violation ? trace.violation : trace.witness) = std::move(found);
        break;
      }
      case EventKind::end:
        trace.end_time = t;
        trace.end_steps = f.u64(field::steps);
        trace.outcome = std::string(f.text(field::outcome));
        break;
      case EventKind::other:
        break;  // a later revision of version 1 added it: ignored, as the format says
    }
  }
  reader.require_end();

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
  if (!outermost.empty()) grow(trace.threads, static_cast<int>(outermost.size()) - 1);
  for (std::size_t i = 0; i < outermost.size(); ++i) trace.threads[i].operations = std::move(outermost[i]);
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
  if (trace.ops.size() > std::numeric_limits<std::uint32_t>::max()) reader.fail(0, "more than 4 billion operations");
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
    if (op.op != trace::op::unpark || !op.woke.value_or(false) || !op.target) continue;
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

namespace {

// The interned names, by id: chunks that never move once made, so a Name reads its text
// without a lock while another thread interns. A trace names a few dozen things; a hostile
// one with millions of distinct step names meets the limit as a clear error.
constexpr std::size_t kNameChunk = 1024;
constexpr std::size_t kNameChunks = 16384;  // 2^24 - 1 names at most (id 0 is the empty one)

struct NameTable {
  std::mutex mutex;
  std::set<std::string, std::less<>> texts;
  std::map<std::string_view, std::uint32_t> ids;
  std::uint32_t next = 1;
  std::array<std::atomic<const std::string_view*>, kNameChunks> chunks{};
};

NameTable& name_table() {
  static NameTable table;
  return table;
}

}  // namespace

Name::Name(std::string_view s) {
  if (s.empty()) return;
  NameTable& table = name_table();
  const std::lock_guard lock(table.mutex);
  if (const auto it = table.ids.find(s); it != table.ids.end()) {
    id_ = it->second;
    return;
  }
  if (table.next == kNameChunk * kNameChunks)
    throw std::length_error(fmt::format("more than {} distinct names (steps, sources, operations)", table.next - 1));
  const std::uint32_t id = table.next++;
  const std::string_view text = *table.texts.emplace(s).first;
  std::atomic<const std::string_view*>& chunk = table.chunks[id / kNameChunk];
  if (chunk.load(std::memory_order_relaxed) == nullptr)
    chunk.store(new std::string_view[kNameChunk], std::memory_order_release);
  // The slot is written before any Name holds its id; a Name passed to another thread
  // travels with the synchronisation that hands it over.
  const_cast<std::string_view*>(chunk.load(std::memory_order_relaxed))[id % kNameChunk] = text;
  table.ids.emplace(text, id);
  id_ = id;
}

std::string_view Name::view() const {
  if (id_ == 0) return {};
  return name_table().chunks[id_ / kNameChunk].load(std::memory_order_acquire)[id_ % kNameChunk];
}

std::string_view intern_name(std::string_view name) { return Name(name).view(); }

Trace parse_trace(std::string_view text, const std::string& name) {
  OperationLines count;
  count.feed(text);
  trace::Reader reader(text, name);
  return parse_events(reader, count.lines());
}

Trace parse_padded_trace(const simdjson::padded_string& text, const std::string& name) {
  return parse_trace(std::string_view(text.data(), text.size()), name);
}

simdjson::padded_string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw TraceError(path.string(), 0, "cannot open the file");
  const std::streamoff size = in.tellg();
  if (size < 0) throw TraceError(path.string(), 0, "cannot read the file");
  simdjson::padded_string text(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(text.data(), size)) throw TraceError(path.string(), 0, "cannot read the file");
  return text;
}

// The file is read twice, a block at a time, never whole: once to count its operations,
// once to parse them. What the viewer keeps is its records, not the file's text.
Trace load_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path.string(), 0, "cannot open the file");
  OperationLines count;
  std::vector<char> block(std::size_t{1} << 20);
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
    count.feed(std::string_view(block.data(), static_cast<std::size_t>(in.gcount())));
  if (in.bad()) throw TraceError(path.string(), 0, "cannot read the file");
  in.clear();
  in.seekg(0);
  if (!in) throw TraceError(path.string(), 0, "cannot read the file");
  trace::Reader reader(in, path.string());
  Trace trace = parse_events(reader, count.lines());
  if (in.bad()) throw TraceError(path.string(), 0, "cannot read the file");
  return trace;
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
  if (op.op == trace::op::rmw) {
    s += fmt::format(" {} -> {}", op.old.value_or(0), op.val.value_or(0));
    if (op.ok && !*op.ok) s += " (failed)";
  } else if (op.val) {
    const bool load = op.op == trace::op::load || op.op == trace::op::plain_load;
    s += fmt::format(" {} {}", load ? "->" : "=", *op.val);
  }
  if (op.target)
    s += fmt::format(" {} ({})", thread_name(*op.target), op.woke.value_or(false) ? "woke it" : "not parked");
  s += fmt::format("  [t {} ns, lat {} ns, cpu {}", op.t, op.lat, op.cpu);
  if (op.buffered) s += ", into the store buffer";
  if (!op.src.empty()) s += fmt::format(", from {}{}", op.src, op.peer ? fmt::format(" of cpu {}", *op.peer) : "");
  if (op.state != 0) s += fmt::format(", line now {}", op.state);
  s += "]";
  return s;
}

std::string Trace::describe(const Step& step) const {
  switch (step.kind) {
    case Step::Kind::op:
      return describe(ops.at(step.op));
    case Step::Kind::violation:
      return fmt::format("VIOLATION {} by {}: {}  [t {} ns]", violation->property, thread_name(violation->thread),
                         violation->msg, violation->t);
    case Step::Kind::witness:
      return fmt::format("WITNESS {}: {}  [t {} ns]", witness->property, witness->msg, witness->t);
  }
  return {};
}

}  // namespace lockstep::view
