#include "axiomatic/witness_plan.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::axiomatic {

namespace {

bool happens(const z3::model& m, const z3::expr& guard) { return m.eval(guard, true).is_true(); }

std::int64_t clock_of(const z3::model& m, const z3::expr& clock) { return m.eval(clock, true).get_numeral_int64(); }

const char* kind_name(EventKind k) {
  switch (k) {
    case EventKind::init:
      return "init";
    case EventKind::load:
      return "load";
    case EventKind::store:
      return "store";
    case EventKind::rmw:
      return "rmw";
    case EventKind::fence:
      return "fence";
  }
  return "?";
}

}  // namespace

std::string describe(const PlanStep& s) {
  if (s.kind == PlanStep::Kind::drain) return fmt::format("drain of thread {}'s store ({})", s.thread, s.where);
  return fmt::format("thread {}: {} ({})", s.thread, kind_name(s.event), s.where);
}

std::vector<PlanStep> witness_plan(const EventGraph& g, const Encoding& enc, const z3::model& m, Model model) {
  struct Placed {
    std::int64_t clock;
    int event;
  };
  // A store that goes through the buffer: its clock is when it reaches memory. Fences other
  // than mfence order nothing: a step of their thread whenever it gets there.
  const auto buffered = [&](const Event& e) { return model == Model::tso && e.kind == EventKind::store && !e.locked; };
  const auto free_step = [](const Event& e) { return e.kind == EventKind::fence && !e.mfence; };

  std::vector<Placed> order;
  for (std::size_t i = 0; i < g.events.size(); ++i) {
    const Event& e = g.events[i];
    if (e.kind == EventKind::init || !happens(m, e.guard)) continue;
    if (model == Model::tso && free_step(e)) continue;  // placed by their thread's progress
    order.push_back({clock_of(m, enc.clock[i]), static_cast<int>(i)});
  }
  std::stable_sort(order.begin(), order.end(), [](const Placed& a, const Placed& b) { return a.clock < b.clock; });

  // Per thread: the events that happen, in program order, and how far the plan has taken it.
  std::vector<std::vector<int>> happening(g.thread_events.size());
  for (std::size_t t = 0; t < g.thread_events.size(); ++t)
    for (int i : g.thread_events[t])
      if (happens(m, g.events[static_cast<std::size_t>(i)].guard)) happening[t].push_back(i);
  std::vector<std::size_t> next(happening.size(), 0);
  std::vector<std::deque<int>> buffer(happening.size());

  std::vector<PlanStep> plan;
  const auto step = [&](int i) {
    const Event& e = g.events[static_cast<std::size_t>(i)];
    plan.push_back({PlanStep::Kind::step, e.thread, e.kind, e.var, e.where});
  };
  // Runs thread t up to (not including) event `until`: its earlier stores enter its buffer,
  // its free fences run; anything else there would have had to come earlier in the order.
  const auto advance = [&](std::size_t t, int until) {
    while (next[t] < happening[t].size() && happening[t][next[t]] != until) {
      const int i = happening[t][next[t]];
      const Event& e = g.events[static_cast<std::size_t>(i)];
      if (buffered(e)) {
        buffer[t].push_back(i);
      } else if (!free_step(e)) {
        throw std::logic_error(fmt::format("witness: thread {}'s {} at {} is ordered after a later event of its thread",
                                           t, kind_name(e.kind), e.where));
      }
      step(i);
      ++next[t];
    }
    if (next[t] == happening[t].size())
      throw std::logic_error(fmt::format("witness: thread {} has no event {}", t, until));
  };

  for (const Placed& p : order) {
    const Event& e = g.events[static_cast<std::size_t>(p.event)];
    const auto t = static_cast<std::size_t>(e.thread);
    if (buffered(e)) {
      // The store reaches memory now: it entered the buffer when its thread got to it.
      const bool issued = std::find(buffer[t].begin(), buffer[t].end(), p.event) != buffer[t].end();
      if (!issued) {
        advance(t, p.event);
        buffer[t].push_back(p.event);
        step(p.event);
        ++next[t];
      }
      if (buffer[t].front() != p.event)
        throw std::logic_error(fmt::format("witness: thread {}'s stores reach memory out of order at {}", t, e.where));
      buffer[t].pop_front();
      plan.push_back({PlanStep::Kind::drain, e.thread, EventKind::store, e.var, e.where});
      continue;
    }
    advance(t, p.event);
    if (e.locked || e.mfence) {
      if (!buffer[t].empty())
        throw std::logic_error(
            fmt::format("witness: thread {}'s locked operation at {} runs with stores buffered", t, e.where));
    }
    step(p.event);
    ++next[t];
  }
  // What is left: free fences at the ends of threads.
  for (std::size_t t = 0; t < happening.size(); ++t) {
    for (; next[t] < happening[t].size(); ++next[t]) {
      const Event& e = g.events[static_cast<std::size_t>(happening[t][next[t]])];
      if (!free_step(e))
        throw std::logic_error(
            fmt::format("witness: thread {}'s {} at {} was never placed", t, kind_name(e.kind), e.where));
      step(happening[t][next[t]]);
    }
    if (!buffer[t].empty()) throw std::logic_error(fmt::format("witness: thread {} ends with stores buffered", t));
  }
  return plan;
}

}  // namespace lockstep::axiomatic
