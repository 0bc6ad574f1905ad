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

#include "trace/label_event.hpp"

namespace lockstep::trace {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormat = "lockstep-trace";
constexpr std::int64_t kReadableVersion = 1;
constexpr int kThreadsPid = 1;
constexpr int kCpusPid = 2;
constexpr int kLocksPid = 3;
constexpr int kFutexPid = 4;
// Track ids are thread and CPU numbers plus one: Perfetto treats tid 0 as the idle task.
constexpr std::uint64_t kTidOffset = 1;

[[noreturn]] void fail(std::size_t line, std::string_view what) {
  throw std::runtime_error(fmt::format("lockstep trace, line {}: {}", line, what));
}

// Chrome trace timestamps are microseconds; a decimal keeps the nanoseconds.
double micros(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

// One event line, with typed access that names the line when a field is missing or mistyped.
class Fields {
 public:
  Fields(const Json& event, std::size_t line) : event_(event), line_(line) {}

  std::size_t line() const { return line_; }
  bool has(const char* key) const { return event_.contains(key); }
  const Json& raw_event() const { return event_; }
  const Json& raw(const char* key) const { return get(key, true, "a value"); }
  std::uint64_t u64(const char* key) const {
    return get(key, get_unchecked(key).is_number_unsigned(), "an unsigned integer").get<std::uint64_t>();
  }
  std::int64_t i64(const char* key) const {
    return get(key, get_unchecked(key).is_number_integer(), "an integer").get<std::int64_t>();
  }
  bool flag(const char* key) const { return get(key, get_unchecked(key).is_boolean(), "a boolean").get<bool>(); }
  std::string text(const char* key) const {
    return get(key, get_unchecked(key).is_string(), "a string").get<std::string>();
  }
  std::uint64_t address(const char* key) const {
    const std::string s = text(key);
    const std::string_view digits = s.starts_with("0x") ? std::string_view(s).substr(2) : std::string_view();
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size())
      fail(line_, fmt::format("'{}' must be a hex address like \"0x1f0\"", key));
    return value;
  }

 private:
  const Json& get_unchecked(const char* key) const {
    static const Json kNull;
    const auto it = event_.find(key);
    return it == event_.end() ? kNull : *it;
  }
  const Json& get(const char* key, bool ok, std::string_view kind) const {
    if (!event_.contains(key)) fail(line_, fmt::format("the event has no '{}'", key));
    if (!ok) fail(line_, fmt::format("'{}' must be {}", key, kind));
    return event_.at(key);
  }

  const Json& event_;
  std::size_t line_;
};

struct Line {
  std::size_t number;
  Json event;
};

// Every non-blank line parsed as a JSON object, numbered from 1.
std::vector<Line> parse_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Json event;
    try {
      event = Json::parse(line);
    } catch (const Json::parse_error& e) {
      fail(number, fmt::format("not valid JSON: {}", e.what()));
    }
    if (!event.is_object()) fail(number, "an event must be a JSON object");
    lines.push_back(Line{number, std::move(event)});
  }
  if (lines.empty()) fail(1, "empty input, not a lockstep trace");
  return lines;
}

void check_header(const Line& first) {
  const Json& h = first.event;
  if (!h.contains("format") || h["format"] != kFormat)
    fail(first.number, fmt::format("not a lockstep trace (the header must have \"format\":\"{}\")", kFormat));
  const bool readable = h.contains("version") && h["version"].is_number_integer() &&
                        h["version"].get<std::int64_t>() == kReadableVersion;
  if (!readable)
    fail(first.number, fmt::format("unsupported trace version {} (this build reads version {})",
                                   h.contains("version") ? h["version"].dump() : "(none)", kReadableVersion));
}

// What the trace calls things: labeled memory regions, thread names, CPUs. Collected
// before the events are converted, so an operation may precede the label of its address.
class Names {
 public:
  void collect(const Fields& f, const std::string& ev) {
    if (ev == "label") {
      try {
        regions_.add(trace::region_of_label(f.raw_event()));
      } catch (const std::invalid_argument& e) {
        fail(f.line(), e.what());
      }
    }
    if (ev == "thread") {
      threads_.emplace(f.u64("th"), f.text("name"));
      cpus_.insert(f.i64("cpu"));
    }
    if (ev == "cpu") cpus_.insert(f.i64("cpu"));
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

Json complete(std::string name, const char* cat, int pid, std::uint64_t tid, std::uint64_t t_ns,
              std::uint64_t dur_ns) {
  return Json{{"name", std::move(name)}, {"cat", cat},       {"ph", "X"},
              {"pid", pid},              {"tid", tid},       {"ts", micros(t_ns)},
              {"dur", micros(dur_ns)}};
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

  void add(const Fields& f, const std::string& ev) {
    last_ns_ = std::max(last_ns_, f.u64("t"));
    if (ended_) return;
    if (ev == "state") on_state(f);
    else if (ev == "cpu") on_cpu(f);
    else if (ev == "op") on_op(f);
    else if (ev == "lock") on_lock(f);
    else if (ev == "futex") on_futex(f);
    else if (ev == "violation") on_violation(f);
    else if (ev == "witness") on_witness(f);
    else if (ev == "end") on_end(f);
    // label and thread were read by Names; events a later minor revision adds are skipped.
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
    return thread_open_.try_emplace(id, Open{"ready", 0}).first->second;
  }

  void on_state(const Fields& f) {
    const std::uint64_t id = f.u64("th");
    const std::uint64_t t = f.u64("t");
    const std::string state = f.text("state");
    std::optional<Open>& open = touch_thread(id);
    if (open && open->name == state) return;
    close_thread(id, open, t);
    if (state == "finished") return;
    open = Open{state, t};
    if (state == "running") running_starts_[id].insert(t);
  }

  void close_thread(std::uint64_t id, std::optional<Open>& open, std::uint64_t t) {
    if (!open) return;
    const std::uint64_t since = open->since_ns;
    if (t > since) events_.push_back(complete(open->name, "state", kThreadsPid, id + kTidOffset, since, t - since));
    open.reset();
  }

  void on_cpu(const Fields& f) {
    const std::int64_t cpu = f.i64("cpu");
    const std::int64_t th = f.i64("th");
    std::optional<Open>& open = cpu_open_[cpu];
    close_cpu(cpu, open, f.u64("t"));
    if (th >= 0) open = Open{names_.thread(static_cast<std::uint64_t>(th)), f.u64("t")};
  }

  void close_cpu(std::int64_t cpu, std::optional<Open>& open, std::uint64_t t) {
    if (!open) return;
    if (t > open->since_ns)
      events_.push_back(complete(open->name, "cpu", kCpusPid, cpu_tid(cpu), open->since_ns, t - open->since_ns));
    open.reset();
  }

  static std::uint64_t cpu_tid(std::int64_t cpu) { return static_cast<std::uint64_t>(cpu) + kTidOffset; }

  std::string op_name(const Fields& f, const std::string& op) const {
    if (op == "rmw") return fmt::format("{} {}", f.text("rmw"), names_.where(f.address("addr")));
    if (op == "unpark") return fmt::format("unpark {}", names_.thread(f.u64("target")));
    if (f.has("addr")) return fmt::format("{} {}", op, names_.where(f.address("addr")));
    return op;
  }

  static Json op_args(const Fields& f) {
    static constexpr const char* kKeys[] = {"addr", "size", "val",  "old", "ok", "target",
                                            "woke", "cpu",  "src",  "peer", "st", "buf"};
    Json args = Json::object();
    for (const char* key : kKeys)
      if (f.has(key)) args[key] = f.raw(key);
    return args;
  }

  void on_op(const Fields& f) {
    const std::string op = f.text("op");
    const std::uint64_t id = f.u64("th");
    const std::uint64_t t = f.u64("t");
    touch_thread(id);
    const std::uint64_t lat = f.has("lat") ? f.u64("lat") : 0;
    Json e = complete(op_name(f, op), "op", kThreadsPid, id + kTidOffset, t, lat);
    if (lat == 0) {
      e.erase("dur");
      e["ph"] = "i";
      e["s"] = "t";
    }
    e["args"] = op_args(f);
    events_.push_back(std::move(e));
    if (op == "unpark" && f.flag("woke")) wakes_.push_back(Wake{id, f.u64("target"), t});
  }

  // A hold runs from a thread's acquire to its release. The release of an exclusive hold
  // followed by another thread's acquire of the lock is a hand-off: an arrow between them.
  void on_lock(const Fields& f) {
    const std::uint64_t addr = f.address("addr");
    const std::uint64_t id = f.u64("th");
    const std::uint64_t t = f.u64("t");
    const std::string act = f.text("act");
    touch_thread(id);
    if (act == "acquire") {
      holds_[{addr, id}] = Hold{t, f.text("mode") == "shared"};
      const auto released = last_release_.find(addr);
      if (released != last_release_.end()) {
        if (released->second.thread != id)
          handoffs_.push_back(Handoff{released->second.thread, released->second.t_ns, id, t});
        last_release_.erase(released);
      }
    } else if (act == "release") {
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
    b["args"] = Json{{"thread", names_.thread(thread)}, {"mode", hold.shared ? "shared" : "exclusive"}};
    Json e = b;
    e["ph"] = "e";
    e["ts"] = micros(until_ns);
    e.erase("args");
    events_.push_back(std::move(b));
    events_.push_back(std::move(e));
  }

  // Each futex bucket's queue length is a counter.
  void on_futex(const Fields& f) {
    const std::uint64_t bucket = f.u64("bucket");
    std::int64_t& waiters = queue_lengths_[bucket];
    waiters += f.text("act") == "enqueue" ? 1 : -1;
    events_.push_back(Json{{"name", fmt::format("bucket {}", bucket)},
                           {"cat", "futex"},
                           {"ph", "C"},
                           {"pid", kFutexPid},
                           {"ts", micros(f.u64("t"))},
                           {"args", Json{{"waiters", waiters}}}});
  }

  void on_violation(const Fields& f) {
    const std::int64_t th = f.i64("th");
    Json e{{"name", fmt::format("VIOLATION {}", f.text("property"))}, {"cat", "violation"}, {"ph", "i"}, {"s", "g"},
           {"pid", kThreadsPid}, {"tid", th >= 0 ? static_cast<std::uint64_t>(th) + kTidOffset : 0},
           {"ts", micros(f.u64("t"))}};
    e["args"] = Json{{"property", f.text("property")}, {"message", f.text("msg")}, {"thread", th}};
    events_.push_back(std::move(e));
  }

  // A witness is found in the final state, by no thread: a global instant like a violation.
  void on_witness(const Fields& f) {
    Json e{{"name", fmt::format("WITNESS {}", f.text("property"))}, {"cat", "witness"}, {"ph", "i"}, {"s", "g"},
           {"pid", kThreadsPid}, {"tid", 0}, {"ts", micros(f.u64("t"))}};
    e["args"] = Json{{"property", f.text("property")}, {"message", f.text("msg")}};
    events_.push_back(std::move(e));
  }

  void on_end(const Fields& f) {
    const std::uint64_t t = f.u64("t");
    close_all(t);
    ended_ = true;
    Json e{{"name", fmt::format("end: {}", f.text("outcome"))}, {"cat", "end"}, {"ph", "i"}, {"s", "g"},
           {"pid", kThreadsPid}, {"tid", 0}, {"ts", micros(t)}};
    e["args"] = Json{{"steps", f.u64("steps")}, {"outcome", f.text("outcome")}};
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
  const std::vector<Line> lines = parse_lines(trace_jsonl);
  check_header(lines.front());
  std::vector<std::pair<Fields, std::string>> events;
  Names names;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const Fields f(lines[i].event, lines[i].number);
    f.u64("t");  // every event has a time, whether or not its kind is known
    std::string ev = f.text("ev");
    names.collect(f, ev);
    events.emplace_back(f, std::move(ev));
  }
  Converter converter(names);
  for (const auto& [f, ev] : events) converter.add(f, ev);
  return converter.finish(lines.front().event).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace lockstep::trace
