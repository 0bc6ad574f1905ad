// Threads that die (`may_die`, docs/scenarios.md "Threads that die"): where a death may land is
// held to a count made by hand from the semantics (before any op that touches shared state,
// or never), and what it leaves behind to what Linux and POSIX say of a mutex whose owner died:
// a plain futex mutex stays locked for good, a robust one passes to the next locker.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "tests/scenario_text.hpp"

using namespace lockstep;
using lockstep::report::RowReport;

namespace {

RowReport check_text(const std::string& name, const std::string& yaml) {
  return lockstep::testing::check_scenario_text("thread-death", name, yaml);
}

// t0 may die; it stores 1, 2 and 3 into x. Dying before its k-th store leaves x == k - 1, and
// not dying leaves 3: four outcomes, each reachable, and no other.
std::string three_stores(const std::string& condition, const std::string& strategy) {
  return fmt::format(R"(name: a mortal thread's outcomes
variables: {{x: 0}}
threads:
  - name: t0
    may_die: true
    program:
      - store: {{var: x, value: 1}}
      - store: {{var: x, value: 2}}
      - store: {{var: x, value: 3}}
properties: [{{name: outcome, exists: "{}"}}]
strategy: {}
expect: {{reachable: outcome}}
)",
                     condition, strategy);
}

// t0 takes the lock and may die holding it; t1 takes it after.
std::string owner_may_die(const std::string& mutex) {
  return fmt::format(R"(name: an owner that may die
design: {{mutex: {}}}
variables: {{x: {{init: 0, kind: plain}}}}
locks: [M]
threads:
  - name: t0
    may_die: true
    program:
      - lock: M
      - store: {{var: x, value: 1}}
      - unlock: M
  - name: t1
    program:
      - lock: M
      - load: {{var: x, into: r}}
      - unlock: M
properties: [deadlock, lost_wakeup]
strategy: {{kind: dfs}}
expect: pass
)",
                     mutex);
}

}  // namespace

TEST_CASE("a mortal thread may die before any op that touches shared state, or not at all", "[death]") {
  for (const char* strategy : {"{kind: dfs}", "{kind: bounded, preemption_bound: 1}"}) {
    for (int k = 0; k <= 3; ++k) {
      INFO(strategy << ": x == " << k);
      const RowReport r = check_text(fmt::format("stores-{}", k), three_stores(fmt::format("x == {}", k), strategy));
      CHECK(r.result == "reachable");
    }
  }
  const RowReport none = check_text("stores-none", three_stores("x == 4", "{kind: dfs}"));
  CHECK(none.result == "unreachable");
  CHECK(none.exhaustive);
}

TEST_CASE("a futex mutex whose owner died stays locked; a robust one passes to the next locker", "[death]") {
  const RowReport plain = check_text("plain-owner-dies", owner_may_die("mutex3"));
  CHECK(plain.result == "violation");
  CHECK(plain.property == "deadlock");
  for (const char* robust : {"glibc-robust-2.24", "glibc-robust-2.25"}) {
    INFO(robust);
    const RowReport r = check_text(fmt::format("robust-owner-dies-{}", robust), owner_may_die(robust));
    CHECK(r.result == "pass");
    CHECK(r.exhaustive);
  }
}

TEST_CASE("a thread that ends holding a robust mutex is an owner that died", "[death]") {
  // t0 never unlocks: the kernel's exit path marks the word, and t1's lock takes it over.
  const RowReport r = check_text("robust-exit-holding", R"(name: exit holding a robust mutex
design: {mutex: glibc-robust-2.25}
locks: [M]
threads:
  - {name: t0, program: [{lock: M}]}
  - {name: t1, program: [{lock: M}, {unlock: M}]}
properties: [deadlock, lost_wakeup]
strategy: {kind: dfs}
expect: pass
)");
  CHECK(r.result == "pass");
  CHECK(r.exhaustive);
}

TEST_CASE("a thread asleep in lock() of a mutex nobody holds is a lost wakeup", "[death]") {
  // glibc 2.24's robust mutex after an owner died (sourceware bug 20973; docs/bugs.md).
  const RowReport r = check_text("robust-bz20973", R"(name: bug 20973 in small
design: {mutex: glibc-robust-2.24}
locks: [M]
threads:
  - {name: t1, program: [{lock: M}, {unlock: M}]}
  - name: t2
    may_die: true
    program: [{loop: {times: 2, body: [{lock: M}, {unlock: M}]}}]
  - {name: t3, program: [{lock: M}, {unlock: M}]}
properties: [deadlock, lost_wakeup]
strategy: {kind: bounded, preemption_bound: 2}
expect: {violation: lost_wakeup}
)");
  CHECK(r.result == "violation");
  CHECK(r.property == "lost_wakeup");
  CHECK_THAT(r.message, Catch::Contains("sleeps in lock(M)"));
  CHECK_THAT(r.message, Catch::Contains("but no thread holds M"));
}

TEST_CASE("mortal threads' companions count against the simulator's thread limit", "[death]") {
  std::string yaml = "name: too many with their companions\nvariables: {x: 0}\nthreads:\n";
  for (int i = 0; i < 1000; ++i)
    yaml += fmt::format("  - {{name: t{}, may_die: {}, program: [{{store: {{var: x, value: 1}}}}]}}\n", i, i < 30);
  yaml += "expect: pass\n";
  const std::filesystem::path file = lockstep::testing::write_scenario_text("thread-death", "too-many", yaml);
  try {
    scenario::load_scenario_file(file.string());
    FAIL("loaded without error");
  } catch (const scenario::ScenarioError& e) {
    CHECK_THAT(e.what(), Catch::Contains("1000 threads and 30 companions"));
    CHECK_THAT(e.what(), Catch::Contains("more than the 1024 the simulator runs"));
  }
}
