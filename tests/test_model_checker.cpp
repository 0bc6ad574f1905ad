// The model checker's strategies on small programs whose answers are known: DPOR must reach
// every final state a full enumeration reaches (soundness) with far fewer executions, hit the
// textbook counts, and the bounded, PCT and parallel searches must behave as documented.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "core/sync/ticket_lock.hpp"
#include "io/base64.hpp"
#include "model/bounded_parallel.hpp"
#include "model/bounded_strategy.hpp"
#include "model/checkpoint.hpp"
#include "model/dpor_parallel.hpp"
#include "model/dpor_strategy.hpp"
#include "model/minimize.hpp"
#include "model/pct_strategy.hpp"
#include "model/random_strategy.hpp"
#include "model/run_groups.hpp"
#include "model/search.hpp"
#include "model/search_estimate.hpp"
#include "model/unit_cache.hpp"
#include "model/work_units.hpp"
#include "sim/exec/sim_platform.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using P = SimPlatform;

namespace {

using Outcome = std::vector<std::uint64_t>;

// A small program: `setup` spawns threads; `observe` reads the final state.
class Program final : public SimWorkload {
 public:
  std::function<void(Engine&)> on_setup;
  std::function<Outcome()> observe;
  std::function<bool(const Outcome&)> bad = [](const Outcome&) { return false; };
  std::set<Outcome> seen;
  void setup(Engine& e) override { on_setup(e); }
  void check(Engine&) override {
    const Outcome o = observe();
    seen.insert(o);
    if (bad(o)) P::violation("bad_outcome", "a forbidden final state");
  }
};

class Runner final : public model::Executor {
 public:
  Runner(Program& p, std::uint32_t store_buffer, int cpus = 4)
      : engine_(MachineShape{std::vector<NodeId>(static_cast<std::size_t>(cpus), 0)}, costs_,
                EngineLimits{100'000, store_buffer}),
        program_(p) {}
  ExecutionResult run(Scheduler& oracle, std::uint64_t index) override {
    return engine_.run(program_, oracle, nullptr, index);
  }
  std::size_t processes() const override { return engine_.thread_count(); }

 private:
  FlatCostModel costs_{FlatCosts{}};
  Engine engine_;
  Program& program_;
};

struct Explored {
  std::set<Outcome> outcomes;
  model::SearchOutcome search;
};

Explored explore(Program& p, model::ExplorationStrategy& s, std::uint32_t store_buffer = 0) {
  p.seen.clear();
  Runner runner(p, store_buffer);
  model::SearchLimits limits;
  limits.max_runs = 2'000'000;
  Explored e;
  e.search = model::search(
      s, runner, [](const ExecutionResult& r) { return r.violation; }, limits);
  e.outcomes = p.seen;
  return e;
}

// Every interleaving: a preemption bound nothing reaches.
model::BoundedStrategy everything() { return model::BoundedStrategy(model::BoundKind::preemption, 1000); }

// Store buffering: t0 writes x, reads y; t1 writes y, reads x.
void store_buffering(Program& p, bool fenced) {
  struct State {
    P::Atomic<std::uint64_t>* x;
    P::Atomic<std::uint64_t>* y;
    std::uint64_t r0, r1;
  };
  auto st = std::make_shared<State>();
  p.on_setup = [st, fenced](Engine& e) {
    st->x = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
    st->y = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
    e.spawn("t0", 0, [st, fenced] {
      st->x->store(1, std::memory_order_relaxed);
      if (fenced) P::fence(std::memory_order_seq_cst);
      st->r0 = st->y->load(std::memory_order_relaxed);
    });
    e.spawn("t1", 1, [st, fenced] {
      st->y->store(1, std::memory_order_relaxed);
      if (fenced) P::fence(std::memory_order_seq_cst);
      st->r1 = st->x->load(std::memory_order_relaxed);
    });
  };
  p.observe = [st] { return Outcome{st->r0, st->r1}; };
}

// n threads each increment a plain counter (load, then store) and remember what they read.
void racy_increments(Program& p, int n) {
  struct State {
    P::Shared<std::uint64_t>* x;
    std::vector<std::uint64_t> read;
  };
  auto st = std::make_shared<State>();
  p.on_setup = [st, n](Engine& e) {
    st->x = make_on<P, P::Shared<std::uint64_t>>(0, 8, 0);
    st->read.assign(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i)
      e.spawn("t" + std::to_string(i), i % 4, [st, i] {
        const std::uint64_t v = st->x->load();
        st->read[static_cast<std::size_t>(i)] = v;
        st->x->store(v + 1);
      });
  };
  p.observe = [st] {
    Outcome o = st->read;
    o.push_back(st->x->load());
    return o;
  };
}

// Message passing through a flag with a spin-wait, then a park/unpark hand-off back.
void spin_and_park(Program& p) {
  struct State {
    P::Atomic<std::uint64_t>* data;
    P::Atomic<std::uint64_t>* flag;
    P::Atomic<std::uint64_t>* back;
    ThreadId waiter = 0;
    std::uint64_t seen_data = 0, seen_back = 0;
  };
  auto st = std::make_shared<State>();
  p.on_setup = [st](Engine& e) {
    st->data = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
    st->flag = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
    st->back = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
    st->waiter = e.spawn("waiter", 0, [st] {
      while (st->flag->load(std::memory_order_acquire) == 0) P::cpu_relax();
      st->seen_data = st->data->load(std::memory_order_relaxed);
      P::park();
      st->seen_back = st->back->load(std::memory_order_acquire);
    });
    e.spawn("sender", 1, [st] {
      st->data->store(1, std::memory_order_relaxed);
      st->flag->store(1, std::memory_order_release);
      st->back->store(7, std::memory_order_release);
      P::unpark(st->waiter);
    });
  };
  p.observe = [st] { return Outcome{st->seen_data, st->seen_back}; };
}

// Three threads under a ticket lock, each recording the counter it saw.
void ticket_counter(Program& p) {
  struct State {
    TicketLock<P>* lock;
    P::Shared<std::uint64_t>* x;
    std::vector<std::uint64_t> read;
  };
  auto st = std::make_shared<State>();
  p.on_setup = [st](Engine& e) {
    st->lock = make_on<P, TicketLock<P>>(0, 64);
    st->x = make_on<P, P::Shared<std::uint64_t>>(0, 8, 0);
    st->read.assign(3, 0);
    for (int i = 0; i < 3; ++i)
      e.spawn("t" + std::to_string(i), i, [st, i] {
        TicketLock<P>::Node node;
        st->lock->lock(node);
        const std::uint64_t v = st->x->load();
        st->read[static_cast<std::size_t>(i)] = v;
        st->x->store(v + 1);
        st->lock->unlock(node);
      });
  };
  p.observe = [st] {
    Outcome o = st->read;
    o.push_back(st->x->load());
    return o;
  };
}

void require_same_outcomes(Program& p, std::uint32_t store_buffer) {
  model::DporStrategy dpor;
  const Explored reduced = explore(p, dpor, store_buffer);
  model::BoundedStrategy all = everything();
  const Explored full = explore(p, all, store_buffer);
  CHECK(reduced.search.exhaustive);
  CHECK(full.search.exhaustive);
  CHECK(reduced.outcomes == full.outcomes);
  CHECK(reduced.search.executions <= full.search.executions);
}

}  // namespace

TEST_CASE("dfs explores store buffering under SC in three executions, one per class", "[model]") {
  Program p;
  store_buffering(p, false);
  model::DporStrategy dpor;
  const Explored e = explore(p, dpor);
  CHECK(e.search.exhaustive);
  CHECK(e.search.executions == 3);
  CHECK(e.search.pruned == 0);
  CHECK(e.outcomes == std::set<Outcome>{{0, 1}, {1, 0}, {1, 1}});
}

TEST_CASE("dfs reaches the relaxed outcome of store buffering under TSO, and not with mfence", "[model]") {
  Program p;
  store_buffering(p, false);
  model::DporStrategy dpor;
  CHECK(explore(p, dpor, 8).outcomes == std::set<Outcome>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  Program q;
  store_buffering(q, true);
  model::DporStrategy dpor2;
  CHECK(explore(q, dpor2, 8).outcomes == std::set<Outcome>{{0, 1}, {1, 0}, {1, 1}});
}

TEST_CASE("dfs reaches every final state a full enumeration reaches", "[model]") {
  SECTION("racy increments, three threads, SC") {
    Program p;
    racy_increments(p, 3);
    require_same_outcomes(p, 0);
  }
  SECTION("racy increments, three threads, TSO") {
    Program p;
    racy_increments(p, 3);
    require_same_outcomes(p, 4);
  }
  SECTION("store buffering under TSO, with and without mfence") {
    Program p;
    store_buffering(p, false);
    require_same_outcomes(p, 4);
    Program q;
    store_buffering(q, true);
    require_same_outcomes(q, 4);
  }
  SECTION("a spin-wait and a park/unpark hand-off, SC and TSO") {
    Program p;
    spin_and_park(p);
    require_same_outcomes(p, 0);
    require_same_outcomes(p, 4);
  }
  SECTION("three threads under a ticket lock (two counters in one word)") {
    // Too many interleavings to enumerate (spinning), so: every order of the three critical
    // sections, and nothing a long random search finds that dfs does not.
    Program p;
    ticket_counter(p);
    model::DporStrategy dpor;
    const Explored reduced = explore(p, dpor);
    CHECK(reduced.search.exhaustive);
    CHECK(reduced.outcomes ==
          std::set<Outcome>{{0, 1, 2, 3}, {0, 2, 1, 3}, {1, 0, 2, 3}, {1, 2, 0, 3}, {2, 0, 1, 3}, {2, 1, 0, 3}});
    model::RandomStrategy random(5);
    p.seen.clear();
    Runner runner(p, 0);
    for (std::uint64_t i = 0; i < 5000; ++i) runner.run(random, i);
    for (const Outcome& o : p.seen) CHECK(reduced.outcomes.count(o) == 1);
  }
}

// The estimator (model/search_estimate.hpp) probes the tree of a search with sleep sets alone,
// which has one complete leaf per class: dfs's count. Programs whose steps do not depend on
// the values read are counted exactly when the strata are not bounded (two probes agree and
// stop); a program that spins until a value appears is sampled, and its interval must hold
// dfs's count. The difference test compares it on every generated program as well.
TEST_CASE("the estimate of a dfs is its count where values do not steer the program, and near it where they do",
          "[model]") {
  const auto both = [](Program& p, std::uint32_t store_buffer, std::size_t strata) {
    model::DporStrategy dpor;
    const Explored e = explore(p, dpor, store_buffer);
    REQUIRE(e.search.exhaustive);
    Runner runner(p, store_buffer);
    model::EstimateOptions o;
    o.strata = strata;
    o.probes = 16;
    return std::pair{e.search.executions, model::estimate_search(runner, o)};
  };
  SECTION("racy increments and store buffering, SC and TSO: exact") {
    for (const std::uint32_t sb : {0U, 4U}) {
      Program p;
      racy_increments(p, 3);
      const auto [count, est] = both(p, sb, 1 << 20);
      CHECK(est.executions == static_cast<double>(count));
      CHECK(est.half_width == 0);
      CHECK(est.probes == 2);
      Program q;
      store_buffering(q, false);
      const auto [count2, est2] = both(q, sb, 1 << 20);
      CHECK(est2.executions == static_cast<double>(count2));
    }
  }
  SECTION("a narrow probe (one stratum a level: Knuth's estimator) is a sample, and still centred") {
    Program p;
    racy_increments(p, 3);
    const auto [count, est] = both(p, 4, 1);
    CHECK(est.probes == 16);
    CHECK(std::abs(est.executions - static_cast<double>(count)) <= est.half_width);
  }
  SECTION("three threads under a ticket lock: spinning, sampled") {
    Program p;
    ticket_counter(p);
    const auto [count, est] = both(p, 0, 0);
    CHECK(est.half_width > 0);
    CHECK(std::abs(est.executions - static_cast<double>(count)) <= est.half_width);
    CHECK(std::abs(est.executions - static_cast<double>(count)) <= 0.3 * static_cast<double>(count));
  }
}

TEST_CASE("dfs explores independent threads once", "[model]") {
  Program p;
  p.on_setup = [](Engine& e) {
    for (int i = 0; i < 4; ++i) {
      auto* v = make_on<P, P::Atomic<std::uint64_t>>(0, 8, 0);
      e.spawn("t" + std::to_string(i), i, [v] {
        for (int k = 0; k < 5; ++k) v->store(v->load() + 1);
      });
    }
  };
  p.observe = [] { return Outcome{}; };
  model::DporStrategy dpor;
  const Explored e = explore(p, dpor);
  CHECK(e.search.exhaustive);
  CHECK(e.search.executions == 1);
}

// A subtree rooted at t0's first step (the load of three racy increments): its executions
// race t0's load with the other threads' stores, and a reversal at node 0 is a request for
// the owner of node 0. Given what the owner covers there (Subtree::covered), it builds none
// for those choices; its own executions are the same either way.
TEST_CASE("a subtree builds no request that its owner's covered choices make a no-op", "[model]") {
  const auto step = [](ThreadId t) { return Choice{Choice::Kind::step, t}; };
  const auto search_subtree = [&](std::vector<model::DporStrategy::Small<Choice>> covered) {
    Program p;
    racy_increments(p, 3);
    model::DporStrategy::Node root;
    root.chosen = step(0);
    root.has_chosen = true;
    model::DporStrategy dfs(model::DporStrategy::Subtree{{root}, std::move(covered)});
    const Explored e = explore(p, dfs);
    std::set<ThreadId> requested;  // the threads of the initials of the requests for node 0
    for (const auto& r : dfs.requests()) {
      CHECK(r.node == 0);
      for (const Choice& c : r.initials) {
        CHECK(c.kind == Choice::Kind::step);
        requested.insert(c.thread);
      }
    }
    return std::pair{e.search.executions, requested};
  };
  const auto [runs, requested] = search_subtree({});
  CHECK(runs > 1);
  CHECK(requested == std::set<ThreadId>{1, 2});
  const auto [runs_t1, requested_t1] = search_subtree({{step(0), step(1)}});
  CHECK(runs_t1 == runs);
  CHECK(requested_t1 == std::set<ThreadId>{2});
  const auto [runs_all, requested_all] = search_subtree({{step(0), step(1), step(2)}});
  CHECK(runs_all == runs);
  CHECK(requested_all.empty());
}

TEST_CASE("a preemption bound of 0 misses the lost update that a bound of 1 finds", "[model]") {
  Program p;
  racy_increments(p, 2);
  p.bad = [](const Outcome& o) { return o.back() != 2; };
  model::BoundedStrategy zero(model::BoundKind::preemption, 0);
  const Explored e0 = explore(p, zero);
  CHECK_FALSE(e0.search.violation);
  CHECK(e0.search.exhaustive);
  model::BoundedStrategy one(model::BoundKind::preemption, 1);
  CHECK(explore(p, one).search.violation);
  model::BoundedStrategy delay(model::BoundKind::delay, 1);
  CHECK(explore(p, delay).search.violation);
}

TEST_CASE("minimization finds the lost update with one preemption and proves it fewest", "[model]") {
  Program p;
  racy_increments(p, 3);
  p.bad = [](const Outcome& o) { return o.back() != 3; };
  model::RandomStrategy random(7);
  const Explored found = explore(p, random);
  REQUIRE(found.search.violation);
  Runner runner(p, 0);
  const model::Verdict verdict = [](const ExecutionResult& r) { return r.violation; };
  model::MinimizeBudget budget;
  budget.executions_per_bound = 10'000;
  const model::Counterexample c =
      model::minimize(runner, verdict, found.search.schedule, found.search.violating_index, budget, "assertion");
  CHECK(c.preemptions == 1);
  CHECK(c.fewest_preemptions_proven);
  CHECK(c.steps == 6);
  CHECK(c.stopped.empty());
  CHECK(c.steps_spent > 0);
  CHECK(model::count_preemptions(runner, c.schedule, 0) == 1);

  // Out of its step budget after the first tries: the schedule found so far, nothing proven.
  budget.steps = 12;
  const model::Counterexample cut =
      model::minimize(runner, verdict, found.search.schedule, found.search.violating_index, budget, "assertion");
  CHECK(cut.stopped == "step budget");
  CHECK_FALSE(cut.fewest_preemptions_proven);
  CHECK(cut.executions <= 3);
  CHECK(model::count_preemptions(runner, cut.schedule, 0) == cut.preemptions);

  // A step-bound violation is not minimized: every try would run to the bound.
  const model::Counterexample skipped =
      model::minimize(runner, verdict, found.search.schedule, found.search.violating_index, budget, "bound_exceeded");
  CHECK(skipped.stopped.starts_with("skipped"));
  CHECK(skipped.executions == 0);
}

TEST_CASE("pct finds the store-buffering outcome and states its guarantee", "[model]") {
  Program p;
  store_buffering(p, false);
  p.bad = [](const Outcome& o) { return o == Outcome{0, 0}; };
  model::PctStrategy pct(1, 2, 8);
  const Explored e = explore(p, pct, 4);
  CHECK(e.search.violation);
  CHECK_FALSE(e.search.exhaustive);
  const double bound = model::PctStrategy::per_execution_probability(2, 4, 8);
  CHECK(bound == Approx(1.0 / 32));
  CHECK_THAT(pct.guarantee_for(4, 100), Catch::Contains("depth 2"));
}

TEST_CASE("a parallel random search reports what one worker would", "[model]") {
  Program p;
  racy_increments(p, 3);
  p.bad = [](const Outcome& o) { return o.back() == 1; };  // rare: all three read 0
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 20'000;
  auto make = [] { return std::make_unique<model::RandomStrategy>(3); };
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<Program> programs(3);
  for (Program& q : programs) {
    racy_increments(q, 3);
    q.bad = p.bad;
  }
  for (Program& q : programs) runners.push_back(std::make_unique<Runner>(q, 0));
  const model::SearchOutcome one = model::search_sampling(make, {runners[0].get()}, verdict, limits);
  const model::SearchOutcome three =
      model::search_sampling(make, {runners[0].get(), runners[1].get(), runners[2].get()}, verdict, limits);
  REQUIRE(one.violation);
  REQUIRE(three.violation);
  CHECK(one.violating_index == three.violating_index);
  CHECK(one.executions == three.executions);
  CHECK(one.schedule == three.schedule);
  CHECK(one.sim_ops == three.sim_ops);
  CHECK(one.max_depth == three.max_depth);
}

TEST_CASE("a parallel bounded search reports what the sequential one does", "[model]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  for (const bool with_violation : {false, true}) {
    std::vector<Program> programs(3);
    for (Program& q : programs) {
      racy_increments(q, 3);
      if (with_violation) q.bad = [](const Outcome& o) { return o.back() == 1; };
    }
    std::vector<std::unique_ptr<Runner>> runners;
    for (Program& q : programs) runners.push_back(std::make_unique<Runner>(q, 0));
    const model::SearchOutcome one =
        model::search_bounded(model::BoundKind::preemption, 2, {runners[0].get()}, verdict, limits);
    const model::SearchOutcome three = model::search_bounded(
        model::BoundKind::preemption, 2, {runners[0].get(), runners[1].get(), runners[2].get()}, verdict, limits);
    CHECK(one.executions > (with_violation ? 1U : 10U));
    CHECK(one.executions == three.executions);
    CHECK(one.exhaustive == !with_violation);
    CHECK(three.exhaustive == one.exhaustive);
    CHECK(one.max_depth == three.max_depth);
    CHECK(one.sim_ops == three.sim_ops);
    CHECK(one.violation.has_value() == with_violation);
    CHECK(three.violation.has_value() == with_violation);
    CHECK(one.schedule == three.schedule);
    CHECK(one.violating_index == three.violating_index);
  }
}

namespace {

// Programs whose parallel and distributed searches must match the sequential one, with the
// store buffer size each runs with.
using Build = std::function<void(Program&)>;
std::vector<std::pair<Build, std::uint32_t>> parallel_cases() {
  return {
      {[](Program& p) { racy_increments(p, 3); }, 0},
      {[](Program& p) { racy_increments(p, 4); }, 4},
      {[](Program& p) { ticket_counter(p); }, 0},
      {[](Program& p) { spin_and_park(p); }, 4},
      {[](Program& p) {
         racy_increments(p, 4);
         p.bad = [](const Outcome& o) { return o.back() == 1; };
       },
       0},
  };
}

// n copies of a program, each with its runner (one per worker or lane).
struct Fleet {
  Fleet(const Build& build, std::uint32_t store_buffer, std::size_t n) : programs(n) {
    for (Program& p : programs) {
      build(p);
      runners.push_back(std::make_unique<Runner>(p, store_buffer));
    }
  }
  std::vector<model::Executor*> executors() const {
    std::vector<model::Executor*> out;
    for (const auto& r : runners) out.push_back(r.get());
    return out;
  }
  std::deque<Program> programs;
  std::vector<std::unique_ptr<Runner>> runners;
};

void require_same(const model::SearchOutcome& many, const model::SearchOutcome& one) {
  CHECK(many.executions == one.executions);
  CHECK(many.pruned == one.pruned);
  CHECK(many.exhaustive == one.exhaustive);
  CHECK(many.max_depth == one.max_depth);
  CHECK(many.sim_ops == one.sim_ops);
  CHECK(many.violation.has_value() == one.violation.has_value());
  CHECK(many.schedule == one.schedule);
  CHECK(many.violating_index == one.violating_index);
}

}  // namespace

namespace {

// Counts the executions it runs (every worker's, to see how much work a search did).
class CountingExecutor final : public model::Executor {
 public:
  explicit CountingExecutor(model::Executor& inner) : inner_(inner) {}
  ExecutionResult run(Scheduler& oracle, std::uint64_t index) override {
    ++runs;
    return inner_.run(oracle, index);
  }
  std::size_t processes() const override { return inner_.processes(); }
  std::atomic<std::uint64_t> runs{0};

 private:
  model::Executor& inner_;
};

}  // namespace

// The merge reads only the first max_runs runs in depth-first order, so a subtree with that
// many before it is not needed: a capped search stops there instead of running every subtree
// to its own cap (which ran a capped search of a large tree out of memory).
TEST_CASE("a capped parallel bounded search runs about as many executions as its cap", "[model]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  Fleet fleet([](Program& p) { racy_increments(p, 4); }, 4, 3);
  model::SearchLimits whole;
  whole.max_runs = 10'000'000;
  const model::SearchOutcome all =
      model::search_bounded(model::BoundKind::preemption, 3, {fleet.runners[0].get()}, verdict, whole);
  model::SearchLimits capped;
  capped.max_runs = 500;
  REQUIRE(all.executions > 20 * capped.max_runs);
  const model::SearchOutcome one =
      model::search_bounded(model::BoundKind::preemption, 3, {fleet.runners[0].get()}, verdict, capped);
  CountingExecutor c0(*fleet.runners[0]);
  CountingExecutor c1(*fleet.runners[1]);
  CountingExecutor c2(*fleet.runners[2]);
  const model::SearchOutcome three =
      model::search_bounded(model::BoundKind::preemption, 3, {&c0, &c1, &c2}, verdict, capped);
  require_same(three, one);
  CHECK(one.executions == capped.max_runs);
  const std::uint64_t ran = c0.runs + c1.runs + c2.runs;
  INFO("executions run by 3 workers: " << ran << " for a cap of " << capped.max_runs
                                       << " (the whole tree: " << all.executions << ")");
  CHECK(ran <= 4 * capped.max_runs);
}

// The same for dfs: a subtree stops once the runs known to come before it and its own reach
// the cap (model/dpor_parallel.cpp, runs_before). And a cap equal to the whole search's size
// leaves it exhaustive, as one worker says (a parallel search used to call it capped).
TEST_CASE("a capped parallel dfs runs about as many executions as its cap", "[model]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  Fleet fleet([](Program& p) { racy_increments(p, 6); }, 0, 3);
  model::SearchLimits whole;
  whole.max_runs = 10'000'000;
  const model::SearchOutcome all = model::search_dfs({fleet.runners[0].get()}, verdict, whole);
  REQUIRE(all.exhaustive);
  model::SearchLimits capped;
  capped.max_runs = 2'000;
  REQUIRE(all.executions + all.pruned > 20 * capped.max_runs);
  const model::SearchOutcome one = model::search_dfs({fleet.runners[0].get()}, verdict, capped);
  CountingExecutor c0(*fleet.runners[0]);
  CountingExecutor c1(*fleet.runners[1]);
  CountingExecutor c2(*fleet.runners[2]);
  const model::SearchOutcome three = model::search_dfs({&c0, &c1, &c2}, verdict, capped);
  require_same(three, one);
  const std::uint64_t ran = c0.runs + c1.runs + c2.runs;
  INFO("executions run by 3 workers: " << ran << " for a cap of " << capped.max_runs
                                       << " (the whole search: " << all.executions + all.pruned << ")");
  CHECK(ran <= 6 * capped.max_runs);
  for (const auto& [build, store_buffer] : parallel_cases()) {
    Fleet small(build, store_buffer, 3);
    const model::SearchOutcome whole_small = model::search_dfs({small.runners[0].get()}, verdict, whole);
    model::SearchLimits exact;
    exact.max_runs = whole_small.executions + whole_small.pruned;
    const model::SearchOutcome at_size = model::search_dfs({small.runners[0].get()}, verdict, exact);
    CHECK(at_size.exhaustive == whole_small.exhaustive);
    for (std::size_t workers : {2U, 3U}) {
      std::vector<model::Executor*> executors = small.executors();
      executors.resize(workers);
      require_same(model::search_dfs(executors, verdict, exact), at_size);
    }
  }
}

// The root of a parallel dfs folds its runs as they come (model/run_groups.hpp, fold_all): a
// search's memory must not grow with its length. Checked against a plain list of every run:
// the figures a search reads of runs counted whole, the last run and the count stay, and the
// groups stay few however many runs of every shape come.
TEST_CASE("a search's runs fold into a few groups with the same figures", "[model]") {
  std::mt19937_64 prng(46);
  model::Runs runs;
  std::vector<model::RunFigures> all;
  std::size_t most_groups = 0;
  for (int i = 0; i < 100'000; ++i) {
    const model::RunFigures r{prng() % 40, prng() % 1000, prng() % 7 == 0};
    const std::uint64_t count = 1 + prng() % 3;
    runs.push(r, count);
    all.insert(all.end(), count, r);
    runs.fold_all();
    std::size_t groups = 0;
    runs.for_first(runs.size(), [&groups](const model::RunFigures&, std::uint64_t) { ++groups; });
    most_groups = std::max(most_groups, groups);
  }
  std::uint64_t complete = 0, abandoned = 0, longest = 0, memory_ops = 0;
  for (const model::RunFigures& r : all) {
    (r.abandoned ? abandoned : complete) += 1;
    longest = std::max(longest, r.steps);
    memory_ops += r.memory_ops;
  }
  std::uint64_t f_complete = 0, f_abandoned = 0, f_longest = 0, f_memory_ops = 0;
  runs.for_first(runs.size(), [&](const model::RunFigures& r, std::uint64_t count) {
    (r.abandoned ? f_abandoned : f_complete) += count;
    f_longest = std::max(f_longest, r.steps);
    f_memory_ops += r.memory_ops * count;
  });
  CHECK(runs.size() == all.size());
  CHECK(f_complete == complete);
  CHECK(f_abandoned == abandoned);
  CHECK(f_longest == longest);
  CHECK(f_memory_ops == memory_ops);
  CHECK(runs.back() == all.back());
  CHECK(most_groups <= 17);
  // Appending a subtree's runs joins the groups that meet instead of keeping them apart.
  model::Runs a, b;
  a.push({5, 10, false}, 3);
  b.push({5, 10, false}, 4);
  a.append(std::move(b));
  std::size_t groups = 0;
  a.for_first(a.size(), [&groups](const model::RunFigures&, std::uint64_t) { ++groups; });
  CHECK(groups == 1);
  CHECK(a.size() == 7);
}

// Every search of a parallel dfs folds its runs as they come (Runs::fold_all), so its
// memory does not grow with its length; where the cap falls inside a merged subtree's folded
// runs, that subtree is searched again up to the cap. Runs of many lengths (threads spinning
// on a ticket lock) cut at several places must give what one worker gives.
TEST_CASE("a parallel dfs cut at its cap inside runs of many lengths reports what one worker does", "[model]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  Fleet fleet(ticket_counter, 0, 3);
  model::SearchLimits whole;
  whole.max_runs = 10'000'000;
  const model::SearchOutcome all = model::search_dfs({fleet.runners[0].get()}, verdict, whole);
  REQUIRE(all.exhaustive);
  const std::uint64_t total = all.executions + all.pruned;
  REQUIRE(total > 200);
  for (const std::uint64_t cap : {total / 7, total / 3, total / 2 + 1, total - 1, total}) {
    model::SearchLimits capped;
    capped.max_runs = cap;
    const model::SearchOutcome one = model::search_dfs({fleet.runners[0].get()}, verdict, capped);
    for (std::size_t workers : {2U, 3U}) {
      INFO("cap " << cap << " of " << total << ", " << workers << " workers");
      std::vector<model::Executor*> executors = fleet.executors();
      executors.resize(workers);
      require_same(model::search_dfs(executors, verdict, capped), one);
    }
  }
}

TEST_CASE("a parallel dfs reports what the sequential one does", "[model]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  // These programs' branches are smaller than the default's smallest piece worth a split
  // (SearchLimits::min_piece_runs): every split is allowed here, so that the merges of
  // pieces split on demand are checked too. The default is run below.
  limits.min_piece_runs = 0;
  for (const auto& [build, store_buffer] : parallel_cases()) {
    Fleet fleet(build, store_buffer, 3);
    const auto& runners = fleet.runners;
    const model::SearchOutcome one = model::search_dfs({runners[0].get()}, verdict, limits);
    for (std::size_t workers : {2U, 3U}) {
      std::vector<model::Executor*> executors;
      for (std::size_t w = 0; w < workers; ++w) executors.push_back(runners[w].get());
      const model::SearchOutcome o = model::search_dfs(executors, verdict, limits);
      require_same(o, one);
      CHECK(o.parallel.tasks >= o.parallel.split_on_demand);
      require_same(model::search_dfs(executors, verdict, model::SearchLimits{limits.max_runs}), one);
    }
    // Any split (--split): from one branching level handed out to more than these programs
    // have, where every branch above half the first execution becomes a task; splits on
    // demand come on top.
    for (unsigned split : {1U, 2U, 4U, 8U}) {
      INFO("split " << split);
      model::SearchLimits split_limits = limits;
      split_limits.split_levels = split;
      require_same(model::search_dfs({runners[0].get(), runners[1].get()}, verdict, split_limits), one);
    }
  }
  // The default splits on demand only: idle workers get branches that way. With the root
  // started once the other workers wait (the pool's hook), the root's first execution finds
  // them idle, so every search splits on demand at least once, whatever the host's load
  // (without the hook, a search of these small programs could end before the pool's threads
  // started waiting: once under ctest -j2).
  model::SearchLimits waiting = limits;
  waiting.start_when_workers_wait = true;
  for (const auto& [build, store_buffer] : parallel_cases()) {
    for (std::size_t workers : {2U, 3U}) {
      Fleet fleet(build, store_buffer, workers);
      const model::SearchOutcome one = model::search_dfs({fleet.runners[0].get()}, verdict, limits);
      const model::SearchOutcome o = model::search_dfs(fleet.executors(), verdict, waiting);
      require_same(o, one);
      INFO(workers << " workers");
      CHECK(o.parallel.split_on_demand > 0);
    }
  }
}

// Remote lanes (docs/distributed.md) without MPI: each lane serves units through the same
// byte encoding and serve_unit an MPI rank uses, on executors of its own; one lane answers
// late, so units finish out of order. The outcome must be the sequential search's.
namespace {

// The local workers run slower than the lanes, so that lanes get units whatever the host's
// speed (the test is that they do, and that what they answer merges right).
class SlowExecutor final : public model::Executor {
 public:
  explicit SlowExecutor(model::Executor& inner, std::chrono::microseconds delay = std::chrono::microseconds(100))
      : inner_(inner), delay_(delay) {}
  ExecutionResult run(Scheduler& oracle, std::uint64_t index) override {
    std::this_thread::sleep_for(delay_);
    return inner_.run(oracle, index);
  }
  std::size_t processes() const override { return inner_.processes(); }

 private:
  model::Executor& inner_;
  std::chrono::microseconds delay_;
};

class LoopbackLanes final : public model::RemoteLanes {
 public:
  // `run_delay`: each execution on a lane is that much slower (SlowExecutor). `lend`: a lane
  // lends its dfs unit's subtrees back whenever the caller has an idle worker (Lending), as
  // an MPI rank does when rank 0 asks.
  LoopbackLanes(std::size_t lanes, const std::function<void(Program&)>& build, std::uint32_t store_buffer,
                std::function<std::optional<sim::Violation>(const ExecutionResult&)> verdict,
                std::chrono::microseconds run_delay = std::chrono::microseconds(0), bool lend = false)
      : fleet_(build, store_buffer, lanes),
        lend_fleet_(build, store_buffer, lend ? lanes : 0),
        verdict_(std::move(verdict)) {
    for (const auto& r : fleet_.runners) slow_.push_back(std::make_unique<SlowExecutor>(*r, run_delay));
  }
  std::size_t size() const override { return fleet_.runners.size(); }
  std::string call(std::size_t lane, const std::string& unit, const Progress* progress,
                   const Lending* lending) override {
    ++sent;
    if (progress != nullptr) ++reporting;
    if (model::from_bytes(unit).value("kind", "") == "dfs-resumed") ++resumed;
    {
      const std::lock_guard lock(mutex_);
      sent_units_.insert(unit);
      if (lent_units_.contains(unit)) ++relayed;
    }
    if (lane == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    model::Executor* ex = slow_.at(lane).get();
    model::UnitContext context{{ex}, verdict_, progress};
    context.min_piece_runs = 0;  // these programs are small: let the lanes' searches split
    const model::LendBack back{[lending] { return lending->claim(); }, [lending] { lending->release(); },
                               [this, lending](const std::string& lent_unit) {
                                 ++lent;
                                 {
                                   const std::lock_guard lock(mutex_);
                                   lent_units_.insert(lent_unit);
                                 }
                                 const auto answer = lending->start(lent_unit);
                                 lending->release();
                                 for (;;) {
                                   if (auto a = answer()) return *a;
                                   std::this_thread::sleep_for(std::chrono::microseconds(50));
                                 }
                               }};
    if (lending != nullptr && lane < lend_fleet_.runners.size()) {
      context.lend_back = &back;
      context.lend_executor = lend_fleet_.runners[lane].get();
    }
    return model::serve_unit(unit, context);
  }
  std::uint64_t units() const override { return sent; }
  bool was_sent(const std::string& unit) const {
    const std::lock_guard lock(mutex_);
    return sent_units_.contains(unit);
  }
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> reporting{0};  // units asked to report their progress
  std::atomic<std::uint64_t> resumed{0};    // units sent with their running states
  std::atomic<std::uint64_t> lent{0};       // subtrees lanes lent back
  std::atomic<std::uint64_t> relayed{0};    // of those, sent on to a lane (not run by a worker)

 private:
  Fleet fleet_;
  Fleet lend_fleet_;  // each lane's lending thread's executor
  std::vector<std::unique_ptr<SlowExecutor>> slow_;
  model::Verdict verdict_;
  mutable std::mutex mutex_;
  std::set<std::string> sent_units_;
  std::set<std::string> lent_units_;
};

}  // namespace

TEST_CASE("searches with remote lanes report what the sequential ones do", "[model][distributed]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  // Whether one small search hands a unit to a lane depends on timing (the local worker may
  // finish first on a loaded machine, and did in CI); that work goes to the lanes is checked
  // over all the searches together.
  std::size_t dfs_units = 0;
  std::size_t bounded_units = 0;
  for (const auto& [build, store_buffer] : parallel_cases()) {
    Fleet fleet(build, store_buffer, 3);
    const auto& runners = fleet.runners;
    for (std::size_t lanes : {1U, 3U}) {
      for (std::size_t local : {1U, 2U}) {
        INFO("lanes " << lanes << ", local workers " << local);
        SlowExecutor slow0(*runners[0]);
        SlowExecutor slow1(*runners[1]);
        std::vector<model::Executor*> executors{&slow0};
        if (local == 2) executors.push_back(&slow1);
        LoopbackLanes remote(lanes, build, store_buffer, verdict);
        // dfs: each lane's thread merges with an executor of its own
        const model::SearchOutcome one = model::search_dfs({runners[0].get()}, verdict, limits);
        LoopbackLanes dfs_lanes(lanes, build, store_buffer, verdict);
        const Fleet probes(build, store_buffer, lanes);
        require_same(model::search_dfs(executors, verdict, limits, &dfs_lanes, probes.executors()), one);
        dfs_units += dfs_lanes.units();
        // bounded
        const model::SearchOutcome b1 =
            model::search_bounded(model::BoundKind::preemption, 2, {runners[0].get()}, verdict, limits);
        require_same(model::search_bounded(model::BoundKind::preemption, 2, executors, verdict, limits, &remote), b1);
        bounded_units += remote.units();
      }
    }
  }
  CHECK(dfs_units > 0);
  CHECK(bounded_units > 0);
  // Sampling: random, the violation of lowest index and every count below it.
  Program p;
  racy_increments(p, 3);
  p.bad = [](const Outcome& o) { return o.back() == 1; };
  Runner runner(p, 0);
  model::SearchLimits sample;
  sample.max_runs = 20'000;
  auto make = [] { return std::make_unique<model::RandomStrategy>(3); };
  const model::SearchOutcome one = model::search_sampling(make, {&runner}, verdict, sample);
  REQUIRE(one.violation);
  LoopbackLanes lanes(
      2,
      [](Program& q) {
        racy_increments(q, 3);
        q.bad = [](const Outcome& o) { return o.back() == 1; };
      },
      0, verdict);
  const model::RemoteSampling chunk = [](model::RemoteLanes& l, std::size_t lane, std::uint64_t lo, std::uint64_t hi) {
    const nlohmann::json unit = {
        {"kind", "sampling"}, {"strategy", {{"kind", "random"}, {"seed", 3}}}, {"lo", lo}, {"hi", hi}};
    return model::decode_chunk(model::from_bytes(l.call(lane, model::to_bytes(unit), nullptr, nullptr)));
  };
  // Slow enough that the lanes' threads, started with the search, take chunks before the
  // local worker reaches the violation, its first execution, even on a loaded machine (at 100 us a run, a loaded
  // 2-core CI machine once let the local worker finish first).
  INFO("the violation's execution: " << one.executions);
  SlowExecutor slow(runner, std::chrono::milliseconds(50));
  require_same(model::search_sampling(make, {&slow}, verdict, sample, &lanes, chunk), one);
  CHECK(lanes.units() > 0);
}

TEST_CASE("a work unit that is not one is refused", "[model][distributed]") {
  model::UnitContext none;
  CHECK_THROWS_WITH(model::serve_unit("not msgpack at all", none), Catch::Contains("work unit"));
  CHECK_THROWS_WITH(model::serve_unit(model::to_bytes({{"kind", "teleport"}}), none), Catch::Contains("unknown kind"));
  CHECK_THROWS_WITH(model::serve_unit(model::to_bytes({{"kind", "dfs"}}), none), Catch::Contains("malformed"));
}

// Checkpoints of parallel searches (model/unit_cache.hpp): resumed from any checkpoint the
// search wrote, on any number of workers, a search reports what the uninterrupted one does,
// and runs fewer executions than a fresh one (it took the finished units' answers).
namespace {

// Every checkpoint a search writes, saved as often as the clock allows.
struct Recorder {
  std::mutex mutex;
  std::vector<model::SearchCheckpoint> saved;
  model::CheckpointPolicy policy() {
    model::CheckpointPolicy p;
    p.every_s = 0.0005;
    p.save = [this](const model::SearchCheckpoint& c) {
      const std::lock_guard lock(mutex);
      saved.push_back(c);
    };
    return p;
  }
  // The last checkpoint with units in it (the one resuming saves most from), or none.
  std::optional<model::SearchCheckpoint> fullest() {
    std::optional<model::SearchCheckpoint> best;
    for (const auto& c : saved)
      if (c.units && !c.units->empty() && (!best || c.units->size() >= best->units->size())) best = c;
    return best;
  }
};

using Search =
    std::function<model::SearchOutcome(const std::vector<model::Executor*>&, const model::CheckpointPolicy*)>;

// How many running units' states (UnitCache::put_running) a checkpoint holds.
std::size_t running_units(const model::SearchCheckpoint& c) {
  if (!c.units) return 0;
  return static_cast<std::size_t>(
      std::count_if(c.units->begin(), c.units->end(), [](const nlohmann::json& e) { return e.size() == 4; }));
}

// Executions `search` runs on `workers` workers (splitting passes included, first-step probes
// not: a parallel dfs splits on demand, as many times as threads happen to be idle, and each
// split probes once), requiring the uninterrupted outcome `one`.
std::uint64_t runs_to_finish(const Fleet& fleet, std::size_t workers, const Search& search,
                             const model::CheckpointPolicy* c, const model::SearchOutcome& one) {
  std::vector<std::unique_ptr<CountingExecutor>> counting;
  std::vector<model::Executor*> executors;
  for (std::size_t w = 0; w < workers; ++w) {
    counting.push_back(std::make_unique<CountingExecutor>(*fleet.runners[w]));
    executors.push_back(counting.back().get());
  }
  const model::SearchOutcome o = search(executors, c);
  require_same(o, one);
  std::uint64_t ran = 0;
  for (const auto& x : counting) ran += x->runs;
  REQUIRE(ran >= o.parallel.probes);
  return ran - o.parallel.probes;
}

// Runs `search` checkpointed on two slow workers, then resumes its fullest checkpoint (and
// its first, and the last with running units) on one, two and three workers.
// `resumed_running`: some checkpoint held running units, and resuming it ran fewer
// executions than a fresh search.
void check_resumes(const Fleet& fleet, const Search& search, const model::SearchOutcome& one, bool& resumed_any,
                   bool* resumed_running = nullptr) {
  Recorder recorder;
  const model::CheckpointPolicy writing = recorder.policy();
  SlowExecutor slow0(*fleet.runners[0]);
  SlowExecutor slow1(*fleet.runners[1]);
  require_same(search({&slow0, &slow1}, &writing), one);
  const auto fullest = recorder.fullest();
  if (!fullest) return;  // finished before any unit did
  resumed_any = true;
  // Through the file's encoding, as --resume reads it.
  const auto reread = [](const model::SearchCheckpoint& c) {
    return model::decode_checkpoint(nlohmann::json::parse(model::encode_checkpoint(c).dump()));
  };
  const model::SearchCheckpoint full = reread(*fullest);
  const model::SearchCheckpoint* first = &recorder.saved.front();
  // The last checkpoint with running units: the one whose states hold the most work done (a
  // state saved after a run or two saves less than resuming it costs: its spawn node's replay).
  const auto last_running =
      std::find_if(recorder.saved.rbegin(), recorder.saved.rend(), [](const auto& c) { return running_units(c) > 0; });
  const model::SearchCheckpoint running =
      reread(last_running != recorder.saved.rend() ? *last_running : recorder.saved.back());
  std::vector<const model::SearchCheckpoint*> resumes{&full, first};
  if (running_units(running) > 0) resumes.push_back(&running);  // bounded searches leave none
  for (const model::SearchCheckpoint* from : resumes) {
    model::CheckpointPolicy resuming;
    resuming.resume = *from;
    for (std::size_t workers : {1U, 2U, 3U}) {
      INFO("resumed on " << workers << " workers from a checkpoint of " << (from->units ? from->units->size() : 0)
                         << " units, " << running_units(*from) << " of them running");
      auto count_runs = [&](const model::CheckpointPolicy* c) {
        return runs_to_finish(fleet, workers, search, c, one);
      };
      model::CheckpointPolicy fresh;  // split as the checkpoint's, with no unit answered
      fresh.resume.emplace();
      fresh.resume->units = nlohmann::json::array();
      fresh.resume->split = from->split;
      const std::uint64_t fresh_runs = count_runs(&fresh);
      const std::uint64_t resumed_runs = count_runs(&resuming);
      if (from == &full) CHECK(resumed_runs < fresh_runs);
      // A running unit's state holds at least one execution it does not run again.
      if (from == &running) {
        CHECK(resumed_runs < fresh_runs);
        if (resumed_running != nullptr) *resumed_running = true;
      }
    }
  }
}

}  // namespace

TEST_CASE("a parallel search resumed from its checkpoint reports what the uninterrupted one does",
          "[model][checkpoint]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  bool dfs_resumed = false;
  bool dfs_running_resumed = false;
  bool bounded_resumed = false;
  for (const auto& [build, store_buffer] : parallel_cases()) {
    Fleet fleet(build, store_buffer, 3);
    const model::SearchOutcome dfs = model::search_dfs({fleet.runners[0].get()}, verdict, limits);
    check_resumes(
        fleet,
        [&](const std::vector<model::Executor*>& ex, const model::CheckpointPolicy* c) {
          return model::search_dfs(ex, verdict, limits, nullptr, {}, c);
        },
        dfs, dfs_resumed, &dfs_running_resumed);
    const model::SearchOutcome bounded =
        model::search_bounded(model::BoundKind::preemption, 2, {fleet.runners[0].get()}, verdict, limits);
    check_resumes(
        fleet,
        [&](const std::vector<model::Executor*>& ex, const model::CheckpointPolicy* c) {
          return model::search_bounded(model::BoundKind::preemption, 2, ex, verdict, limits, nullptr, c);
        },
        bounded, bounded_resumed);
  }
  // Some program ran long enough to checkpoint finished units: the test resumed something.
  CHECK(dfs_resumed);
  CHECK(dfs_running_resumed);
  CHECK(bounded_resumed);
}

// A unit on a remote lane of a checkpointed dfs reports its progress (RemoteLanes::Progress),
// so a checkpoint holds the states of units running on other ranks, not only rank 0's: a
// search resumed from one goes on from them, with the uninterrupted outcome.
// A lane lends its unit's subtrees back while this process has an idle worker (MPI: rank 0
// asks, mpi/mpi_session.cpp). The lanes here are slow, so the local worker runs out of work
// while a lane still runs a unit, and takes that unit's subtrees: they merge on the lane, as
// its own would, and the outcome must be the sequential search's.
TEST_CASE("a distributed dfs whose lanes lend subtrees back reports what the sequential one does",
          "[model][distributed]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  limits.min_piece_runs = 0;  // small programs: every split allowed, as on the lanes
  std::uint64_t units = 0;
  std::uint64_t lent = 0;
  std::uint64_t relayed = 0;
  // Whether units go out, come back and are relayed depends on timing: these programs are
  // small, and the local worker sometimes finishes a whole search before a slow lane asks
  // (5 times in 60 once subtrees stopped building requests their owner had covered). So the
  // searches run again, each checked, until all three happened, up to 20 rounds.
  int rounds = 0;
  for (; rounds < 20 && (units == 0 || lent == 0 || relayed == 0); ++rounds) {
    for (const auto& [build, store_buffer] : parallel_cases()) {
      Fleet fleet(build, store_buffer, 2);
      const model::SearchOutcome one = model::search_dfs({fleet.runners[0].get()}, verdict, limits);
      // With 3 lanes, a lane left without work gets part of another lane's unit.
      for (std::size_t lanes : {1U, 2U, 3U}) {
        INFO("lanes " << lanes);
        LoopbackLanes remote(lanes, build, store_buffer, verdict, std::chrono::microseconds(300), true);
        const Fleet probes(build, store_buffer, lanes);
        require_same(model::search_dfs({fleet.runners[1].get()}, verdict, limits, &remote, probes.executors()), one);
        units += remote.units();
        lent += remote.lent;
        relayed += remote.relayed;
      }
    }
  }
  INFO("rounds " << rounds << ": units sent " << units << ", lent back " << lent << ", of those sent on to a lane "
                 << relayed);
  CHECK(units > 0);
  CHECK(lent > 0);
  CHECK(relayed > 0);
}

TEST_CASE("a checkpoint of a distributed dfs holds the progress of units running on remote lanes",
          "[model][checkpoint][distributed]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 1'000'000;
  bool resumed_remote = false;
  std::uint64_t sent_resumed = 0;
  for (const auto& [build, store_buffer] : parallel_cases()) {
    Fleet fleet(build, store_buffer, 3);
    const model::SearchOutcome one = model::search_dfs({fleet.runners[0].get()}, verdict, limits);
    // The lane runs slowly too, so that its units last several reporting periods.
    LoopbackLanes lanes(1, build, store_buffer, verdict, std::chrono::microseconds(100));
    Fleet probe_fleet(build, store_buffer, 1);
    Recorder recorder;
    const model::CheckpointPolicy writing = recorder.policy();
    SlowExecutor slow(*fleet.runners[0]);
    require_same(model::search_dfs({&slow}, verdict, limits, &lanes, {probe_fleet.runners[0].get()}, &writing), one);
    CHECK(lanes.reporting == lanes.sent);  // every dfs unit sent was asked to report
    // Running states of units that went to the lane: only its reports put them there.
    const auto remote_states = [&lanes](const model::SearchCheckpoint& c) {
      std::size_t n = 0;
      for (const nlohmann::json& e : *c.units)
        if (e.size() == 4 && lanes.was_sent(io::base64_decode(e.at(0).get<std::string>()))) ++n;
      return n;
    };
    const model::SearchCheckpoint* best = nullptr;
    std::size_t most = 0;
    for (const auto& c : recorder.saved)
      if (c.units && remote_states(c) > most) {
        most = remote_states(c);
        best = &c;
      }
    if (best == nullptr) continue;  // the lane's units were too short to report (a small program)
    const model::SearchCheckpoint from =
        model::decode_checkpoint(nlohmann::json::parse(model::encode_checkpoint(*best).dump()));
    INFO("resumed from a checkpoint of " << from.units->size() << " units, " << most << " reported by the lane");
    // Resumed with no lane, on one and two workers: the lane's units go on here from their states.
    for (std::size_t workers : {1U, 2U}) {
      const Search local = [&](const std::vector<model::Executor*>& ex, const model::CheckpointPolicy* c) {
        return model::search_dfs(ex, verdict, limits, nullptr, {}, c);
      };
      auto count_runs = [&](const model::CheckpointPolicy* c) { return runs_to_finish(fleet, workers, local, c, one); };
      model::CheckpointPolicy resuming;
      resuming.resume = from;
      model::CheckpointPolicy fresh;
      fresh.resume.emplace();
      fresh.resume->units = nlohmann::json::array();
      fresh.resume->split = from.split;
      CHECK(count_runs(&resuming) < count_runs(&fresh));
    }
    resumed_remote = true;
    // Resumed with a lane again: a running unit the lane's thread meets goes back to the
    // lane with its state and what is known below it ("dfs-resumed").
    LoopbackLanes again(1, build, store_buffer, verdict);
    Fleet again_probes(build, store_buffer, 1);
    SlowExecutor local(*fleet.runners[0]);
    model::CheckpointPolicy resuming;
    resuming.resume = from;
    require_same(model::search_dfs({&local}, verdict, limits, &again, {again_probes.runners[0].get()}, &resuming), one);
    sent_resumed += again.resumed;
  }
  CHECK(resumed_remote);
  // Which thread meets a running unit first depends on timing; over the five programs, the
  // lane's did (the local worker is slowed for that).
  CHECK(sent_resumed > 0);
}

TEST_CASE("a checkpoint's units that are not a search's are refused", "[model][checkpoint]") {
  model::UnitCache cache;
  CHECK_THROWS_WITH(model::UnitCache::load(nlohmann::json::object(), cache), Catch::Contains("not a list"));
  CHECK_THROWS_WITH(model::UnitCache::load(nlohmann::json::parse(R"([["a", "b", null]])"), cache),
                    Catch::Contains("base64"));
  CHECK_THROWS_WITH(model::UnitCache::load(nlohmann::json::parse(R"([["AAAA", "AAAA", null]])"), cache),
                    Catch::Contains("MessagePack"));
  // A split of 0 is a dfs's default (every split on demand); past 64, no search's.
  CHECK_NOTHROW(model::decode_checkpoint(nlohmann::json::parse(R"({"units": [], "split": 0})")));
  CHECK_THROWS_WITH(model::decode_checkpoint(nlohmann::json::parse(R"({"units": [], "split": 65})")),
                    Catch::Contains("out of range"));
}

TEST_CASE("a sampling search resumed from its checkpoint reports what the uninterrupted one does",
          "[model][checkpoint]") {
  auto verdict = [](const ExecutionResult& r) { return r.violation; };
  model::SearchLimits limits;
  limits.max_runs = 20'000;
  const std::vector<std::pair<std::string, model::StrategyFactory>> strategies{
      {"random", [] { return std::make_unique<model::RandomStrategy>(7); }},
      {"pct", [] { return std::make_unique<model::PctStrategy>(3, 2, 12); }},
  };
  int violations_resumed = 0;  // searches that found a violation after a checkpoint
  for (const bool with_violation : {false, true}) {
    // Five threads, and for the violation the one order of them that reads 0, 1, 2, 3, 4: rare
    // enough under random that searches checkpoint before finding it.
    const Build build = [with_violation](Program& p) {
      racy_increments(p, 5);
      if (with_violation) p.bad = [](const Outcome& o) { return o == Outcome{0, 1, 2, 3, 4, 5}; };
    };
    Fleet fleet(build, 0, 3);
    for (const auto& [name, make] : strategies) {
      INFO(name << (with_violation ? ", with a rare violation" : ", passing"));
      const model::SearchOutcome one = model::search_sampling(make, {fleet.runners[0].get()}, verdict, limits);
      for (std::size_t writers : {1U, 2U}) {
        Recorder recorder;
        // Saving at every chance (after each execution on one worker, each batch on more),
        // so which checkpoints exist does not depend on the host's speed.
        model::CheckpointPolicy writing = recorder.policy();
        writing.every_s = 1e-9;
        std::vector<model::Executor*> writing_executors;
        for (std::size_t w = 0; w < writers; ++w) writing_executors.push_back(fleet.runners[w].get());
        require_same(model::search_sampling(make, writing_executors, verdict, limits, nullptr, {}, &writing), one);
        // The search wrote checkpoints: one worker after every execution, several after every
        // batch (none when the violation falls in the first batch).
        if (recorder.saved.empty()) {
          CHECK((writers > 1 && one.violation && one.violating_index < 4096));
          continue;
        }
        if (with_violation) ++violations_resumed;
        // The last one and the first, through the file's encoding, on 1, 2 and 3 workers.
        for (const model::SearchCheckpoint* from : {&recorder.saved.back(), &recorder.saved.front()}) {
          model::CheckpointPolicy resuming;
          resuming.resume = model::decode_checkpoint(nlohmann::json::parse(model::encode_checkpoint(*from).dump()));
          REQUIRE(from->next > 0);
          for (std::size_t workers : {1U, 2U, 3U}) {
            INFO("written on " << writers << ", resumed at execution " << from->next << " on " << workers);
            std::vector<std::unique_ptr<CountingExecutor>> counting;
            std::vector<model::Executor*> executors;
            for (std::size_t w = 0; w < workers; ++w) {
              counting.push_back(std::make_unique<CountingExecutor>(*fleet.runners[w]));
              executors.push_back(counting.back().get());
            }
            require_same(model::search_sampling(make, executors, verdict, limits, nullptr, {}, &resuming), one);
            std::uint64_t ran = 0;
            for (const auto& x : counting) ran += x->runs;
            // It ran none of the executions the checkpoint counted (more workers run past a
            // violation to the end of their batch).
            CHECK(ran <= limits.max_runs - from->next);
            if (!with_violation && workers == 1) CHECK(ran == limits.max_runs - from->next);
          }
        }
      }
    }
  }
  CHECK(violations_resumed >= 3);  // random's, written on one worker and on two; pct's on one
  // A checkpoint of one sampling search does not resume another (another seed, depth or kind).
  Fleet fleet([](Program& p) { racy_increments(p, 3); }, 0, 1);
  model::SearchCheckpoint c;
  c.next = 0;
  c.strategy = *model::RandomStrategy(3).save_state();
  model::CheckpointPolicy other;
  other.resume = c;
  for (const model::StrategyFactory& make :
       std::vector<model::StrategyFactory>{[] { return std::make_unique<model::RandomStrategy>(4); },
                                           [] { return std::make_unique<model::PctStrategy>(3, 2, 12); }}) {
    CHECK_THROWS_WITH(model::search_sampling(make, {fleet.runners[0].get()}, verdict, limits, nullptr, {}, &other),
                      Catch::Contains("not this one"));
  }
}
