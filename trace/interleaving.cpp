#include "trace/interleaving.hpp"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trace/address_names.hpp"
#include "trace/format.hpp"
#include "trace/reader.hpp"

namespace lockstep::trace {

namespace {

namespace field = trace::field;
using trace::Event;
using trace::EventKind;

enum class ItemKind : std::uint8_t { access, drain, note, step_begin };

// One event of the trace that the views show: a step of the schedule (an access, a fence,
// a park, an unpark, a drain), a note (a thread falls asleep, the violation), or the begin
// of a protocol step.
struct Item {
  ItemKind kind = ItemKind::access;
  std::int64_t th = -1;
  std::string text;           // what the raw line says after the thread
  std::string location;       // the access's location by name (empty when none); a drain's "x = 1"
  long instance = -1;         // the protocol step it belongs to (access) or begins (step_begin)
  std::size_t raw_index = 0;  // 1-based into Interleaving::raw
  std::size_t number = 0;     // its step number in the schedule (0: a note, a step begin)
};

// A protocol step as it was performed: begun by a note of its thread, ended by another.
struct Instance {
  std::int64_t th = -1;
  std::string what;
  long parent = -1;
  long last_child = -1;
  std::size_t accesses = 0;  // its own and its descendants'
};

// What a drain writes: "x = 1".
std::string written_by(const Event& drain, const std::string& location) {
  return fmt::format("{} = {}", location, drain.u64(field::val));
}

std::string describe_access(const Event& e, std::string_view op, const trace::AddressNames& names,
                            std::string& location) {
  if (e.has(field::addr)) location = names.name_of(e.address(field::addr));
  if (op == trace::op::load || op == trace::op::plain_load)
    return fmt::format("{} {} -> {}", op, location, e.u64(field::val));
  if (op == trace::op::store || op == trace::op::plain_store)
    return fmt::format("{} {} = {}{}", op, location, e.u64(field::val),
                       e.opt_flag(field::buf).value_or(false) ? " (into the store buffer)" : "");
  if (op == trace::op::rmw) {
    const bool ok = e.opt_flag(field::ok).value_or(true);
    return fmt::format("{} {}: {} -> {}{}", e.text(field::rmw), location, e.u64(field::old), e.u64(field::val),
                       ok ? "" : " (failed)");
  }
  if (op == trace::op::drain) return fmt::format("store buffer drains: {} reaches memory", written_by(e, location));
  return std::string(op);  // fence, pause, park
}

class InterleavingBuilder {
 public:
  Interleaving read(std::string_view text) {
    trace::Reader reader(text, "trace");
    while (reader.next()) event(reader.event());
    group();
    return std::move(out_);
  }

 private:
  std::string thread(std::int64_t id) const {
    const auto it = threads_.find(id);
    return it == threads_.end() ? std::string("-") : it->second;
  }

  void raw(Item item, bool numbered) {
    if (numbered) item.number = ++out_.raw_steps;
    const std::string number = numbered ? fmt::format("{:>4}", item.number) : std::string(4, ' ');
    out_.raw.push_back(fmt::format("{}  {:<10} {}", number, thread(item.th), item.text));
    item.raw_index = out_.raw.size();
    items_.push_back(std::move(item));
  }

  std::string thread_or_number(std::int64_t id) const {
    const auto it = threads_.find(id);
    return it != threads_.end() ? it->second : std::to_string(id);
  }

  void event(const Event& e) {
    const std::int64_t th = e.has(field::th) ? e.i64(field::th) : -1;
    switch (e.kind()) {
      case EventKind::label:
        names_.add(e.region());
        break;
      case EventKind::thread:
        threads_[th] = std::string(e.text(field::name));
        break;
      case EventKind::step:
        step_note(e, th);
        break;
      case EventKind::op: {
        const std::string_view op = e.text(field::op);
        if (op == trace::op::unpark) {
          access(
              th,
              fmt::format("unpark {}{}", thread_or_number(e.i64(field::target)),
                          e.opt_flag(field::woke).value_or(false) ? " (wakes it)" : " (not parked: leaves a permit)"),
              {}, false);
          break;
        }
        std::string location;
        const std::string text = describe_access(e, op, names_, location);
        const bool drain = op == trace::op::drain;
        // A drain's line in a run of drains lists what it wrote; an access's, where.
        access(th, text, drain ? written_by(e, location) : location, drain);
        break;
      }
      case EventKind::state: {
        const auto state = trace::parse_thread_state(e.text(field::state));
        if (state == trace::ThreadState::parked || state == trace::ThreadState::spinning)
          raw(Item{ItemKind::note, th, state == trace::ThreadState::parked ? "sleeps" : "blocks spinning", {}, -1, 0},
              false);
        break;
      }
      // A lock's and a futex queue's notes: lines of the raw view, not steps of the schedule
      // (unnumbered), and not lines of their own in the protocol-step view, where the
      // accesses that took the lock or queued the waiter already stand.
      case EventKind::lock:
        lock_note(e, th);
        break;
      case EventKind::futex:
        futex_note(e, th);
        break;
      case EventKind::violation:
        raw(Item{ItemKind::note,
                 th,
                 fmt::format("VIOLATION {}: {}", e.text(field::property), e.text(field::msg)),
                 {},
                 -1,
                 0},
            false);
        break;
      default:
        break;
    }
  }

  // "acquires lock bucket[14].lock", "waits for lock m (shared)".
  void lock_note(const Event& e, std::int64_t th) {
    const auto act = trace::parse_lock_act(e.text(field::act));
    if (!act) return;  // a later revision's act
    const char* verb = *act == trace::LockAct::wait      ? "waits for"
                       : *act == trace::LockAct::acquire ? "acquires"
                                                         : "releases";
    const bool shared = e.has(field::mode) && e.text(field::mode) == trace::kShared;
    raw_event_line(
        th, fmt::format("{} lock {}{}", verb, names_.name_of(e.address(field::addr)), shared ? " (shared)" : ""));
  }

  // "queues waiter on bucket 14 (futex f)", "takes waiter off bucket 14 (futex f)".
  void futex_note(const Event& e, std::int64_t th) {
    const auto act = trace::parse_futex_act(e.text(field::act));
    if (!act) return;
    const std::int64_t waiter = e.i64(field::waiter);
    const std::string who = waiter == th ? std::string("itself") : thread_or_number(waiter);
    raw_event_line(
        th, fmt::format("{} {} {} bucket {} (futex {})", *act == trace::FutexAct::enqueue ? "queues" : "takes", who,
                        *act == trace::FutexAct::enqueue ? "on" : "off", e.u64(field::bucket),
                        names_.name_of(e.address(field::key))));
  }

  // A line of the raw view only (no item: the protocol-step view does not show it).
  void raw_event_line(std::int64_t th, const std::string& text) {
    out_.raw.push_back(fmt::format("{}  {:<10} {}", std::string(4, ' '), thread(th), text));
  }

  void step_note(const Event& e, std::int64_t th) {
    const auto act = trace::parse_step_act(e.text(field::act));
    std::vector<long>& open = open_[th];
    if (act == trace::StepAct::end) {
      if (open.empty()) e.fail("a protocol step ends that did not begin");
      open.pop_back();
      return;
    }
    if (act != trace::StepAct::begin) e.fail(fmt::format("unknown step act '{}'", e.text(field::act)));
    const std::string what = e.has(field::what) ? std::string(e.text(field::what)) : std::string();
    out_.has_protocol_steps = true;
    const long id = static_cast<long>(instances_.size());
    const long parent = open.empty() ? -1 : open.back();
    instances_.push_back(Instance{th, what, parent, -1, 0});
    if (parent >= 0) instances_[static_cast<std::size_t>(parent)].last_child = id;
    open.push_back(id);
    items_.push_back(Item{ItemKind::step_begin, th, {}, {}, id, 0});
  }

  void access(std::int64_t th, std::string text, std::string location, bool drain) {
    long instance = -1;
    if (!drain) {
      const auto it = open_.find(th);
      if (it != open_.end() && !it->second.empty()) instance = it->second.back();
      for (long i = instance; i >= 0; i = instances_[static_cast<std::size_t>(i)].parent)
        ++instances_[static_cast<std::size_t>(i)].accesses;
    }
    raw(Item{drain ? ItemKind::drain : ItemKind::access, th, std::move(text), std::move(location), instance, 0}, true);
  }

  std::string path(long id) const {
    const Instance& i = instances_[static_cast<std::size_t>(id)];
    return i.parent < 0 ? i.what : fmt::format("{} > {}", path(i.parent), i.what);
  }

  // A protocol step with no access is shown when it is its operation's last (its outcome).
  bool shown_without_access(long id) const {
    const Instance& i = instances_[static_cast<std::size_t>(id)];
    return i.accesses == 0 && i.parent >= 0 && instances_[static_cast<std::size_t>(i.parent)].last_child == id;
  }

  // Folds runs of raw steps into protocol-step lines.
  void group() {
    std::size_t at = 0;
    std::vector<bool> seen(instances_.size(), false);
    while (at < items_.size()) {
      const Item& item = items_[at];
      if (item.kind == ItemKind::step_begin) {
        if (shown_without_access(item.instance)) out_.steps.push_back(outcome_line(items_[at]));
        ++at;
        continue;
      }
      if (item.kind == ItemKind::note) {
        out_.steps.push_back(
            ProtocolStepLine{thread(item.th), item.text, {}, item.raw_index, item.raw_index, 0, 0, true});
        ++at;
        continue;
      }
      // A run: the same protocol step of the same thread (or drains of the same buffer),
      // uninterrupted by another thread's step; step begins of other instances end it.
      std::size_t end = at + 1;
      if (item.kind == ItemKind::drain || item.instance >= 0) {
        while (end < items_.size()) {
          const Item& next = items_[end];
          if (next.kind == ItemKind::step_begin && next.th != item.th) {
            ++end;  // another thread's step begins without an access yet: not an interruption
            continue;
          }
          if (next.kind != item.kind || next.th != item.th || next.instance != item.instance) break;
          ++end;
        }
        while (end > at + 1 && items_[end - 1].kind == ItemKind::step_begin) --end;  // leave those to the next line
      }
      std::vector<const Item*> run;
      for (std::size_t k = at; k < end; ++k)
        if (items_[k].kind == item.kind) run.push_back(&items_[k]);
      ProtocolStepLine line{thread(item.th),
                            {},
                            summary(run, item.kind == ItemKind::drain),
                            run.front()->raw_index,
                            run.back()->raw_index,
                            run.front()->number,
                            run.back()->number};
      if (item.kind == ItemKind::drain) {
        line.step = "store buffer drains";
      } else if (item.instance >= 0) {
        line.step = path(item.instance);
        if (seen[static_cast<std::size_t>(item.instance)]) line.step += " (continued)";
        seen[static_cast<std::size_t>(item.instance)] = true;
      } else {
        line.step = item.text;
        line.detail.clear();
      }
      out_.steps.push_back(std::move(line));
      // Other threads' step begins skipped above are handled where they stand.
      for (std::size_t k = at + 1; k < end; ++k)
        if (items_[k].kind == ItemKind::step_begin && shown_without_access(items_[k].instance))
          out_.steps.push_back(outcome_line(items_[k]));
      at = end;
    }
  }

  // A protocol step with no access of its own, shown as its operation's outcome.
  ProtocolStepLine outcome_line(const Item& begin) const {
    return ProtocolStepLine{thread(begin.th), path(begin.instance), {}, 0, 0, 0, 0, false};
  }

  static std::string summary(const std::vector<const Item*>& run, bool drains) {
    if (drains) {
      std::string list;
      const std::size_t shown = std::min<std::size_t>(run.size(), 3);
      for (std::size_t k = 0; k < shown; ++k) list += (k == 0 ? "" : ", ") + run[k]->location;  // "x = 1"
      if (run.size() > shown) list += fmt::format(", and {} more", run.size() - shown);
      return run.size() == 1 ? list + " reaches memory" : fmt::format("{} stores reach memory: {}", run.size(), list);
    }
    if (run.size() <= 2) {
      std::string s;
      for (const Item* i : run) s += (s.empty() ? "" : "; ") + i->text;
      return s;
    }
    std::vector<std::string> places;
    for (const Item* i : run)
      if (!i->location.empty() && std::find(places.begin(), places.end(), i->location) == places.end())
        places.push_back(i->location);
    std::string list;
    for (std::size_t k = 0; k < places.size() && k < 3; ++k) list += (k == 0 ? "" : ", ") + places[k];
    if (places.size() > 3) list += fmt::format(", and {} more", places.size() - 3);
    return places.empty() ? fmt::format("{} steps", run.size()) : fmt::format("{} steps on {}", run.size(), list);
  }

  trace::AddressNames names_;
  std::map<std::int64_t, std::string> threads_;
  std::map<std::int64_t, std::vector<long>> open_;  // per thread: its open protocol steps, innermost last
  std::vector<Instance> instances_;
  std::vector<Item> items_;
  Interleaving out_;
};

}  // namespace

Interleaving read_interleaving(std::string_view trace_text) { return InterleavingBuilder().read(trace_text); }

std::vector<std::string> format_protocol_steps(const Interleaving& in, bool verbose) {
  std::vector<std::string> lines;
  std::size_t n = 0;
  for (const ProtocolStepLine& s : in.steps) {
    // The raw step numbers it folds, as --verbose and the schedule count them.
    std::string folds;
    if (s.first_step != 0)
      folds = s.first_step == s.last_step ? fmt::format("  (#{})", s.first_step)
                                          : fmt::format("  (#{}-{})", s.first_step, s.last_step);
    lines.push_back(fmt::format("{}  {:<10} {}{}{}", s.note ? std::string(4, ' ') : fmt::format("{:>4}", ++n), s.thread,
                                s.step, s.detail.empty() ? "" : ": " + s.detail, folds));
    if (verbose && s.first_raw != 0 && s.last_raw > s.first_raw)
      for (std::size_t k = s.first_raw; k <= s.last_raw; ++k) lines.push_back("      | " + in.raw[k - 1]);
  }
  return lines;
}

}  // namespace lockstep::trace
