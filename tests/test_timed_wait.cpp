// Timed futex waits (futex_wait's `timeout`, core/futex/futex_deadline.hpp): a timed wait
// returns what futex(2) can return, woken (0), the word differed (EAGAIN) or the deadline
// passed (ETIMEDOUT), each reachable and nothing else; a waiter a requeue moved times out from
// the bucket it was moved to; the wait a timeout replaces would have been a deadlock.
#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "tests/scenario_text.hpp"

using namespace lockstep;
using lockstep::report::RowReport;

namespace {

RowReport check_text(const std::string& name, const std::string& yaml) {
  return lockstep::testing::check_scenario_text("timed-wait", name, yaml);
}

// t0 waits on f with a timeout; t1 sets f and wakes one.
std::string wait_and_wake(const std::string& condition) {
  return fmt::format(R"(name: a timed wait's results
design: {{futex: linux-3.14}}
variables: {{f: {{init: 0, kind: futex}}}}
threads:
  - name: t0
    program:
      - futex_wait: {{var: f, expect: 0, timeout: true, into: r}}
  - name: t1
    program:
      - store: {{var: f, value: 1}}
      - futex_wake: {{var: f, count: 1}}
properties: [deadlock, lost_wakeup, {{name: outcome, exists: "{}"}}]
strategy: {{kind: dfs}}
expect: {{reachable: outcome}}
)",
                     condition);
}

}  // namespace

TEST_CASE("a timed futex wait returns 0, EAGAIN or ETIMEDOUT, each reachable, and nothing else", "[timed]") {
  for (int result : {0, 11, 110}) {
    INFO("t0.r == " << result);
    CHECK(check_text(fmt::format("result-{}", result), wait_and_wake(fmt::format("t0.r == {}", result))).result ==
          "reachable");
  }
  const RowReport other = check_text("result-other", wait_and_wake("t0.r != 0 && t0.r != 11 && t0.r != 110"));
  CHECK(other.result == "unreachable");
  CHECK(other.exhaustive);
}

TEST_CASE("a timed waiter moved by a requeue times out from the bucket it was moved to", "[timed]") {
  const std::string yaml = R"(name: requeued, then timed out
design: {futex: linux-3.14}
variables: {f: {init: 0, kind: futex}, g: {init: 0, kind: futex}}
threads:
  - {name: t0, program: [{futex_wait: {var: f, expect: 0, timeout: true, into: r}}]}
  - {name: t1, program: [{futex_requeue: {var: f, to: g, wake: 0, requeue: all, into: m}}]}
properties: [deadlock, lost_wakeup, {name: moved, exists: "t1.m == 1 && t0.r == 110"}]
strategy: {kind: dfs}
expect: {reachable: moved}
)";
  CHECK(check_text("requeued", yaml).result == "reachable");
}

TEST_CASE("a wait nobody wakes is a deadlock, and with a timeout it ends", "[timed]") {
  const auto lone = [](bool timed) {
    return fmt::format(R"(name: nobody wakes
design: {{futex: linux-3.14}}
variables: {{f: {{init: 0, kind: futex}}}}
threads:
  - {{name: t0, program: [{{futex_wait: {{var: f, expect: 0, timeout: {}, into: r}}}}]}}
properties: [deadlock, {{name: timed_out, forall: "t0.r == 110"}}]
strategy: {{kind: dfs}}
expect: pass
)",
                       timed ? "true" : "false");
  };
  const RowReport untimed = check_text("lone-untimed", lone(false));
  CHECK(untimed.result == "violation");
  CHECK(untimed.property == "deadlock");
  const RowReport timed = check_text("lone-timed", lone(true));
  CHECK(timed.result == "pass");
  CHECK(timed.exhaustive);
}
