// Comparing two traces: real ones recorded by `lockstep check`, and hand-written ones.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "gui/model/compare.hpp"
#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

std::string trace_text(const std::string& ops, std::uint64_t end) {
  return R"({"format":"lockstep-trace","version":1,"scenario":"s.yaml","name":"n","params":{},"strategy":"dfs","seed":1,"execution":0,"memory_model":"sc","cpus":2,"node_of_cpu":[0,0]}
{"t":0,"ev":"thread","th":0,"name":"t0","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"t1","cpu":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
)" + ops +
         R"({"t":)" + std::to_string(end) + R"(,"ev":"end","steps":3,"outcome":"pass"})" + "\n";
}

const std::string kStore0 = R"({"t":0,"ev":"op","th":0,"cpu":0,"op":"store","addr":"0x0","size":8,"val":1,"lat":2})"
                            "\n";
const std::string kLoad1 = R"({"t":2,"ev":"op","th":1,"cpu":1,"op":"load","addr":"0x0","size":8,"val":1,"lat":2})"
                           "\n";
const std::string kLoad1Slow = R"({"t":2,"ev":"op","th":1,"cpu":1,"op":"load","addr":"0x0","size":8,"val":1,"lat":9})"
                               "\n";
const std::string kLoad1Old = R"({"t":2,"ev":"op","th":1,"cpu":1,"op":"load","addr":"0x0","size":8,"val":0,"lat":2})"
                              "\n";
const std::string kStore1 = R"({"t":4,"ev":"op","th":1,"cpu":1,"op":"store","addr":"0x8","size":8,"val":7,"lat":2})"
                            "\n";

TEST_CASE("view: compare finds the first operation whose thread, kind, address or value differs") {
  const Trace a = parse_trace(trace_text(kStore0 + kLoad1 + kStore1, 6));
  const Trace other_value = parse_trace(trace_text(kStore0 + kLoad1Old + kStore1, 6));
  const Comparison c = compare_traces(a, other_value);
  REQUIRE(c.divergence);
  CHECK(c.divergence->index == 1);
  REQUIRE(c.divergence->described[0]);
  CHECK(c.divergence->described[0]->find("-> 1") != std::string::npos);
  CHECK(c.divergence->described[1]->find("-> 0") != std::string::npos);

  // Latency alone is timing, not a different execution.
  const Trace slower = parse_trace(trace_text(kStore0 + kLoad1Slow + kStore1, 13));
  const Comparison timing = compare_traces(a, slower);
  CHECK(!timing.divergence);
  CHECK(timing.end_time_ns == Pair<std::uint64_t>{6, 13});

  // One trace is a prefix of the other: they part where the shorter one ends.
  const Trace shorter = parse_trace(trace_text(kStore0 + kLoad1, 4));
  const Comparison prefix = compare_traces(a, shorter);
  REQUIRE(prefix.divergence);
  CHECK(prefix.divergence->index == 2);
  CHECK(prefix.divergence->described[0]);
  CHECK(!prefix.divergence->described[1]);
  CHECK(prefix.op_counts.at("store") == Pair<std::size_t>{2, 1});
  CHECK(prefix.op_counts.at("load") == Pair<std::size_t>{1, 1});
}

// Traces of two scenarios recorded by `lockstep check`.
std::pair<Trace, Trace> recorded(const std::string& a, const std::string& b, const std::string& stem) {
  const auto path_a = testing::record_trace(a, stem + "-a");
  const auto path_b = testing::record_trace(b, stem + "-b");
  REQUIRE(!path_a.empty());
  REQUIRE(!path_b.empty());
  return {load_trace(path_a), load_trace(path_b)};
}

TEST_CASE("view: compare of the futex lost-wakeup counterexample with the fixed design") {
  const auto [bad, good] =
      recorded("scenarios/futex/lost-wakeup-missing-barrier.yaml", "scenarios/futex/lost-wakeup-fixed.yaml", "cmp");
  const Comparison c = compare_traces(bad, good);
  CHECK(c.outcome == Pair<std::string>{"violation", "pass"});
  CHECK(c.finding[0] == "violation lost_wakeup");
  CHECK(c.finding[1].empty());
  CHECK(c.end_time_ns == Pair<std::uint64_t>{bad.end_time, good.end_time});
  CHECK(c.steps == Pair<std::uint64_t>{bad.end_steps, good.end_steps});
  CHECK(c.ops == Pair<std::size_t>{bad.ops.size(), good.ops.size()});
  // The counterexample ends with the waiter asleep in park.
  CHECK(c.op_counts.at("park")[0] >= 1);
  // The fix is the waker's barrier: the runs agree until the waker's step after its store.
  REQUIRE(c.divergence);
  const std::size_t at = c.divergence->index;
  for (std::size_t i = 0; i < at; ++i) CHECK(step_key(bad.ops[i]) == step_key(good.ops[i]));
  REQUIRE(at < bad.ops.size());
  REQUIRE(at < good.ops.size());
  CHECK(!(step_key(bad.ops[at]) == step_key(good.ops[at])));
  CHECK(c.divergence->described[0]->rfind("waker:", 0) == 0);
  CHECK(c.divergence->described[1]->rfind("waker:", 0) == 0);
  // Per thread: both traces have the same two threads; their times add up to what the states say.
  REQUIRE(c.threads.size() == 2);
  for (const ThreadComparison& th : c.threads) CHECK(th.name[0] == th.name[1]);
  std::uint64_t running = 0;
  for (const StateInterval& iv : bad.threads[0].intervals)
    if (iv.state == ThreadState::running) running += iv.end - iv.begin;
  CHECK(c.threads[0].times[0].in(ThreadState::running) == running);
}

TEST_CASE("view: a trace compared with the same execution recorded again has no difference") {
  const auto [a, b] =
      recorded("scenarios/futex/lost-wakeup-fixed.yaml", "scenarios/futex/lost-wakeup-fixed.yaml", "same");
  const Comparison c = compare_traces(a, b);
  CHECK(!c.divergence);
  CHECK(c.end_time_ns[0] == c.end_time_ns[1]);
  CHECK(c.outcome[0] == c.outcome[1]);
  for (const auto& [kind, n] : c.op_counts) CHECK(n[0] == n[1]);
  for (const ThreadComparison& th : c.threads)
    for (std::size_t s = 0; s < kThreadStates; ++s) CHECK(th.times[0].ns[s] == th.times[1].ns[s]);
}

}  // namespace
}  // namespace lockstep::view
