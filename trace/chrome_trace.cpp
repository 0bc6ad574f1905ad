#include "trace/chrome_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trace/format.hpp"
#include "trace/reader.hpp"

namespace lockstep::trace {

namespace {

using Json = nlohmann::ordered_json;
namespace field = trace::field;
using trace::Event;
using trace::EventKind;

constexpr int kThreadsPid = 1;
constexpr int kCpusPid = 2;
constexpr int kLocksPid = 3;
constexpr int kFutexPid = 4;
// Track ids are thread and CPU numbers plus one: Perfetto treats tid 0 as the idle task.
constexpr std::uint64_t kTidOffset = 1;
// What errors call the input (the exporter is handed the text, not the file).
constexpr std::string_view kInputName = "lockstep trace";

// Chrome trace timestamps are microseconds; a decimal keeps the nanoseconds.
double micros(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// What the trace calls things: labeled memory regions, thread names, CPUs. Collected
// before the events are converted, so an operation may precede the label of its address.
class Names {
 public:
  void collect(const Event& f) {
    if (f.kind() == EventKind::label) {
      try {
        regions_.add(f.region());
      } catch (const std::invalid_argument& e) {
        f.fail(e.what());
      }
    }
    if (f.kind() == EventKind::thread) {
      threads_.emplace(f.u64(field::th), f.text(field::name));
      cpus_.insert(f.i64(field::cpu));
    }
    if (f.kind() == EventKind::cpu) cpus_.insert(f.i64(field::cpu));
  }

  std::string thread(std::uint64_t id) const {
    const auto it = threads_.find(id);
    return it == threads_.end() ? fmt::format("thread {}", id) : it->second;
  }

  // The design's name for `addr` (trace/address_names.hpp): bucket[14].waiters, hex elsewhere.
  std::string where(std::uint64_t addr) const { return regions_.name_of(addr); }

  const std::map<std::uint64_t, std::string>& threads() const { return threads_; }
  const std::set<std::int64_t>& cpus() const { return cpus_; }

 private:
  trace::AddressNames regions_;
  std::map<std::uint64_t, std::string> threads_;
  std::set<std::int64_t> cpus_;
};

Json complete(std::string name, const char* cat, int pid, std::uint64_t tid, std::uint64_t t_ns, std::uint64_t dur_ns) {
  return Json{{"name", std::move(name)}, {"cat", cat},           {"ph", "X"}, {"pid", pid}, {"tid", tid},
              {"ts", micros(t_ns)},      {"dur", micros(dur_ns)}};
}

Json metadata(const char* what, int pid, std::optional<std::uint64_t> tid, const std::string& key, Json value) {
  Json e{{"name", what}, {"ph", "M"}, {"pid", pid}};
  if (tid) e["tid"] = *tid;
  e["args"] = Json{{key, std::move(value)}};
  return e;
}

// Turns the events, in file order, into Chrome trace events. An interval opens at a state
// (or cpu) event and closes at the thread's (or CPU's) next one, or at the end.
class Converter {
 public:
  explicit Converter(const Names& names) : names_(names) {
    for (const auto& [id, name] : names.threads()) touch_thread(id);
  }

  void add(const Event& f) {
    last_ns_ = std::max(last_ns_, f.time());
    switch (f.kind()) {
      case EventKind::state:
        on_state(f);
        break;
      case EventKind::cpu:
        on_cpu(f);
        break;
      case EventKind::op:
        on_op(f);
        break;
      case EventKind::lock:
        on_lock(f);
        break;
      case EventKind::futex:
        on_futex(f);
        break;
      case EventKind::violation:
        on_violation(f);
        break;
      case EventKind::witness:
        on_witness(f);
        break;
      case EventKind::end:
        on_end(f);
        break;
      // label and thread were read by Names; events a later minor revision adds are skipped.
      default:
        break;
    }
  }

  Json finish(Json header) {
    if (!ended_) close_all(last_ns_);
    add_flows();
    sort_for_nesting();
    Json all = metadata_events();
    for (Json& e : events_) all.push_back(std::move(e));
    return Json{{"traceEvents", std::move(all)}, {"displayTimeUnit", "ns"}, {"metadata", std::move(header)}};
  }

 private:
  struct Open {
    std::string name;
    std::uint64_t since_ns;
  };
  struct Wake {
    std::uint64_t waker;
    std::uint64_t target;
    std::uint64_t t_ns;
  };
  struct Hold {
    std::uint64_t since_ns;
    bool shared;
  };
  struct Release {
    std::uint64_t thread;
    std::uint64_t t_ns;
  };
  struct Handoff {
    std::uint64_t from;
    std::uint64_t released_ns;
    std::uint64_t to;
    std::uint64_t acquired_ns;
  };

  std::optional<Open>& touch_thread(std::uint64_t id) {
    return thread_open_.try_emplace(id, Open{std::string(name_of(trace::ThreadState::ready)), 0}).first->second;
  }

  void on_state(const Event& f) {
    const std::uint64_t id = f.u64(field::th);
    const std::uint64_t t = f.time();
    const std::string state(f.text(field::state));
    std::optional<Open>& open = touch_thread(id);
    if (open && open->name == state) return;
    close_thread(id, open, t);
    if (state == name_of(trace::ThreadState::finished)) return;
    open = Open{state, t};
    if (state == name_of(trace::ThreadState::running)) running_starts_[id].insert(t);
  }

  void close_thread(std::uint64_t id, std::optional<Open>& open, std::uint64_t t) {
    if (!open) return;
    const std::uint64_t since = open->since_ns;
    if (t > since) events_.push_back(complete(open->name, "state", kThreadsPid, id + kTidOffset, since, t - since));
    open.reset();
  }

  void on_cpu(const Event& f) {
    const std::int64_t cpu = f.i64(field::cpu);
    const std::int64_t th = f.i64(field::th);
    std::optional<Open>& open = cpu_open_[cpu];
    close_cpu(cpu, open, f.time());
    if (th >= 0) open = Open{names_.thread(static_cast<std::uint64_t>(th)), f.time()};
  }

  void close_cpu(std::int64_t cpu, std::optional<Open>& open, std::uint64_t t) {
    if (!open) return;
    if (t > open->since_ns)
      events_.push_back(complete(open->name, "cpu", kCpusPid, cpu_tid(cpu), open->since_ns, t - open->since_ns));
    open.reset();
  }

  static std::uint64_t cpu_tid(std::int64_t cpu) { return static_cast<std::uint64_t>(cpu) + kTidOffset; }

  std::string op_name(const Event& f, const std::string& op) const {
    if (op == trace::op::rmw) return fmt::format("{} {}", f.text(field::rmw), names_.where(f.address(field::addr)));
    if (op == trace::op::unpark) return fmt::format("{} {}", op, names_.thread(f.u64(field::target)));
    if (f.has(field::addr)) return fmt::format("{} {}", op, names_.where(f.address(field::addr)));
    return op;
  }

  static Json op_args(const Event& f) {
    static constexpr std::string_view kKeys[] = {field::addr, field::size,   field::val,  field::old,
                                                 field::ok,   field::target, field::woke, field::cpu,
                                                 field::src,  field::peer,   field::st,   field::buf};
    Json args = Json::object();
    for (const std::string_view key : kKeys)
      if (f.has(key)) args[std::string(key)] = f.member_json<Json>(key);
    return args;
  }

  void on_op(const Event& f) {
    const std::string op(f.text(field::op));
    const std::uint64_t id = f.u64(field::th);
    const std::uint64_t t = f.time();
    touch_thread(id);
    const std::uint64_t lat = f.has(field::lat) ? f.u64(field::lat) : 0;
    Json e = complete(op_name(f, op), "op", kThreadsPid, id + kTidOffset, t, lat);
    if (lat == 0) {
      e.erase("dur");
      e["ph"] = "i";
      e["s"] = "t";
    }
    e["args"] = op_args(f);
    events_.push_back(std::move(e));
    if (op == trace::op::unpark && f.flag(field::woke)) wakes_.push_back(Wake{id, f.u64(field::target), t});
  }

  // A hold runs from a thread's acquire to its release. The release of an exclusive hold
  // followed by another thread's acquire of the lock is a hand-off: an arrow between them.
  void on_lock(const Event& f) {
    const std::uint64_t addr = f.address(field::addr);
    const std::uint64_t id = f.u64(field::th);
    const std::uint64_t t = f.time();
    const std::optional<trace::LockAct> act = trace::parse_lock_act(f.text(field::act));
    touch_thread(id);
    if (act == trace::LockAct::acquire) {
      holds_[{addr, id}] = Hold{t, f.text(field::mode) == trace::kShared};
      const auto released = last_release_.find(addr);
      if (released != last_release_.end()) {
        if (released->second.thread != id)
          handoffs_.push_back(Handoff{released->second.thread, released->second.t_ns, id, t});
        last_release_.erase(released);
      }
    } else if (act == trace::LockAct::release) {
      const auto hold = holds_.find({addr, id});
      if (hold == holds_.end()) return;  // its acquire is not in the trace
      add_hold(addr, id, hold->second, t);
      if (!hold->second.shared) last_release_[addr] = Release{id, t};
      holds_.erase(hold);
    }
  }

  // Holds overlap (readers share a lock), so they are async slices, named by the lock.
  void add_hold(std::uint64_t addr, std::uint64_t thread, const Hold& hold, std::uint64_t until_ns) {
    ++hold_ids_;
    Json b{{"name", names_.where(addr)},
           {"cat", "lock"},
           {"ph", "b"},
           {"id", hold_ids_},
           {"pid", kLocksPid},
           {"tid", kTidOffset},
           {"ts", micros(hold.since_ns)}};
    b["args"] = Json{{"thread", names_.thread(thread)}, {"mode", hold.shared ? trace::kShared : trace::kExclusive}};
    Json e = b;
    e["ph"] = "e";
    e["ts"] = micros(until_ns);
    e.erase("args");
    events_.push_back(std::move(b));
    events_.push_back(std::move(e));
  }

  // Each futex bucket's queue length is a counter.
  void on_futex(const Event& f) {
    const std::uint64_t bucket = f.u64(field::bucket);
    std::int64_t& waiters = queue_lengths_[bucket];
    waiters += trace::parse_futex_act(f.text(field::act)) == trace::FutexAct::enqueue ? 1 : -1;
    events_.push_back(Json{{"name", fmt::format("bucket {}", bucket)},
                           {"cat", "futex"},
                           {"ph", "C"},
                           {"pid", kFutexPid},
                           {"ts", micros(f.time())},
                           {"args", Json{{"waiters", waiters}}}});
  }

  void on_violation(const Event& f) {
    const std::int64_t th = f.i64(field::th);
    Json e{{"name", fmt::format("VIOLATION {}", f.text(field::property))},
           {"cat", "violation"},
           {"ph", "i"},
           {"s", "g"},
           {"pid", kThreadsPid},
           {"tid", th >= 0 ? static_cast<std::uint64_t>(th) + kTidOffset : 0},
           {"ts", micros(f.time())}};
    e["args"] = Json{{"property", f.text(field::property)}, {"message", f.text(field::msg)}, {"thread", th}};
    events_.push_back(std::move(e));
  }

  // A witness is found in the final state, by no thread: a global instant like a violation.
  void on_witness(const Event& f) {
    Json e{{"name", fmt::format("WITNESS {}", f.text(field::property))},
           {"cat", "witness"},
           {"ph", "i"},
           {"s", "g"},
           {"pid", kThreadsPid},
           {"tid", 0},
           {"ts", micros(f.time())}};
    e["args"] = Json{{"property", f.text(field::property)}, {"message", f.text(field::msg)}};
    events_.push_back(std::move(e));
  }

  void on_end(const Event& f) {
    const std::uint64_t t = f.time();
    close_all(t);
    ended_ = true;
    Json e{{"name", fmt::format("end: {}", f.text(field::outcome))},
           {"cat", "end"},
           {"ph", "i"},
           {"s", "g"},
           {"pid", kThreadsPid},
           {"tid", 0},
           {"ts", micros(t)}};
    e["args"] = Json{{"steps", f.u64(field::steps)}, {"outcome", f.text(field::outcome)}};
    events_.push_back(std::move(e));
  }

  void close_all(std::uint64_t t) {
    for (auto& [id, open] : thread_open_) close_thread(id, open, t);
    for (auto& [cpu, open] : cpu_open_) close_cpu(cpu, open, t);
    for (const auto& [key, hold] : holds_) add_hold(key.first, key.second, hold, t);
    holds_.clear();
  }

  // A wakeup is an arrow from the waker's unpark to the start of the target's next running
  // interval; a wakeup the target never ran after has no arrow.
  void add_flows() {
    std::uint64_t id = 0;
    for (const Wake& w : wakes_) {
      const auto starts = running_starts_.find(w.target);
      if (starts == running_starts_.end()) continue;
      const auto start = starts->second.lower_bound(w.t_ns);
      if (start == starts->second.end()) continue;
      ++id;
      events_.push_back(flow("wake", "s", id, w.waker, w.t_ns));
      events_.push_back(flow("wake", "f", id, w.target, *start));
    }
    for (const Handoff& h : handoffs_) {
      ++id;
      events_.push_back(flow("handoff", "s", id, h.from, h.released_ns));
      events_.push_back(flow("handoff", "f", id, h.to, h.acquired_ns));
    }
  }

  // Importers nest slices of one track in the order they read them, so a slice must come
  // before the slices it holds: by start time, longer first, a thread's state before its
  // operations; instants and flow ends after the slices that start with them.
  void sort_for_nesting() {
    const auto key = [](const Json& e) {
      const bool slice = e["ph"] == "X";
      const int rank = !slice ? 2 : e["cat"] == "op" ? 1 : 0;
      return std::tuple(e["ts"].get<double>(), slice ? -e["dur"].get<double>() : 0.0, rank);
    };
    std::stable_sort(events_.begin(), events_.end(), [&](const Json& a, const Json& b) { return key(a) < key(b); });
  }

  static Json flow(const char* kind, const char* phase, std::uint64_t id, std::uint64_t thread, std::uint64_t t_ns) {
    Json e{{"name", kind},      {"cat", kind},        {"ph", phase},
           {"id", id},          {"pid", kThreadsPid}, {"tid", thread + kTidOffset},
           {"ts", micros(t_ns)}};
    if (std::string_view(phase) == "f") e["bp"] = "e";
    return e;
  }

  Json metadata_events() const {
    Json out = Json::array();
    out.push_back(metadata("process_name", kThreadsPid, std::nullopt, "name", "threads"));
    out.push_back(metadata("process_sort_index", kThreadsPid, std::nullopt, "sort_index", kThreadsPid));
    out.push_back(metadata("process_name", kCpusPid, std::nullopt, "name", "CPUs"));
    out.push_back(metadata("process_sort_index", kCpusPid, std::nullopt, "sort_index", kCpusPid));
    if (hold_ids_ > 0) {
      out.push_back(metadata("process_name", kLocksPid, std::nullopt, "name", "locks"));
      out.push_back(metadata("process_sort_index", kLocksPid, std::nullopt, "sort_index", kLocksPid));
    }
    if (!queue_lengths_.empty()) {
      out.push_back(metadata("process_name", kFutexPid, std::nullopt, "name", "futex buckets"));
      out.push_back(metadata("process_sort_index", kFutexPid, std::nullopt, "sort_index", kFutexPid));
    }
    for (const auto& [id, open] : thread_open_) {
      out.push_back(metadata("thread_name", kThreadsPid, id + kTidOffset, "name", names_.thread(id)));
      out.push_back(metadata("thread_sort_index", kThreadsPid, id + kTidOffset, "sort_index", id));
    }
    std::set<std::int64_t> cpus = names_.cpus();
    for (const auto& [cpu, open] : cpu_open_) cpus.insert(cpu);
    for (const std::int64_t cpu : cpus) {
      out.push_back(metadata("thread_name", kCpusPid, cpu_tid(cpu), "name", fmt::format("cpu {}", cpu)));
      out.push_back(metadata("thread_sort_index", kCpusPid, cpu_tid(cpu), "sort_index", cpu));
    }
    return out;
  }

  const Names& names_;
  std::map<std::uint64_t, std::optional<Open>> thread_open_;
  std::map<std::int64_t, std::optional<Open>> cpu_open_;
  std::map<std::uint64_t, std::set<std::uint64_t>> running_starts_;
  std::vector<Wake> wakes_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, Hold> holds_;  // by lock address, then thread
  std::map<std::uint64_t, Release> last_release_;                  // by lock address, until acquired
  std::vector<Handoff> handoffs_;
  std::uint64_t hold_ids_ = 0;
  std::map<std::uint64_t, std::int64_t> queue_lengths_;  // by bucket
  Json events_ = Json::array();
  std::uint64_t last_ns_ = 0;
  bool ended_ = false;
};

}  // namespace

std::string chrome_trace_json(std::string_view trace_jsonl) {
  // Two passes over the text (trace/reader.hpp): the names first, so an operation may
  // precede the label of its address; then the events.
  Names names;
  trace::Reader first(trace_jsonl, std::string(kInputName));
  while (first.next()) names.collect(first.event());
  trace::Reader second(trace_jsonl, std::string(kInputName));
  Converter converter(names);
  while (second.next()) converter.add(second.event());
  return converter.finish(second.header()).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace lockstep::trace
