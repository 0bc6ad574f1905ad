// The viewer's trace model on hand-written traces (docs/traces.md) and on real ones.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include <string>

#include "gui/model/trace.hpp"
#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

const std::string kHeader =
    R"({"format":"lockstep-trace","version":1,"scenario":"s.yaml","name":"n","params":{},"strategy":"timed","seed":1,"execution":0,"memory_model":"sc","cpus":2,"node_of_cpu":[0,1]})"
    "\n";

// The example of docs/traces.md.
const std::string kRacy =
    R"({"format":"lockstep-trace","version":1,"scenario":"scenarios/basics/racy-counter.yaml","name":"racy counter","params":{},"strategy":"random","seed":1,"execution":2,"memory_model":"sc","cpus":2,"node_of_cpu":[0,0]}
{"t":0,"ev":"label","addr":"0x0","size":8,"name":"x"}
{"t":0,"ev":"thread","th":0,"name":"t0","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"t1","cpu":1}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"op","th":0,"cpu":0,"op":"plain_load","addr":"0x0","size":8,"val":0,"lat":2}
{"t":2,"ev":"op","th":1,"cpu":1,"op":"plain_load","addr":"0x0","size":8,"val":0,"lat":2}
{"t":4,"ev":"op","th":1,"cpu":1,"op":"plain_store","addr":"0x0","size":8,"val":1,"lat":2}
{"t":6,"ev":"state","th":1,"state":"finished"}
{"t":6,"ev":"op","th":0,"cpu":0,"op":"plain_store","addr":"0x0","size":8,"val":1,"lat":2}
{"t":8,"ev":"state","th":0,"state":"finished"}
{"t":8,"ev":"violation","th":-1,"property":"lost_update","msg":"final state fails 'x == 2'"}
{"t":8,"ev":"end","steps":4,"outcome":"violation"}
)";

std::size_t error_line(const std::string& text) {
  try {
    parse_trace(text);
  } catch (const TraceError& e) {
    return e.line();
  }
  return static_cast<std::size_t>(-1);
}

TEST_CASE("view: the documented example parses into threads, intervals, operations and the violation") {
  const Trace t = parse_trace(kRacy);
  CHECK(t.name == "racy counter");
  CHECK(t.strategy == "random");
  CHECK(t.execution == 2u);
  REQUIRE(t.threads.size() == 2);
  CHECK(t.threads[0].name == "t0");
  CHECK(t.threads[1].cpu == 1);
  REQUIRE(t.threads[1].intervals.size() == 1);
  CHECK(t.threads[1].intervals[0].state == ThreadState::running);
  CHECK(t.threads[1].intervals[0].begin == 0);
  CHECK(t.threads[1].intervals[0].end == 6);
  REQUIRE(t.ops.size() == 4);
  CHECK(t.ops[3].op == "plain_store");
  CHECK(t.ops[3].thread == 0);
  CHECK(t.ops[3].val == 1u);
  CHECK(t.ops[3].lat == 2);
  CHECK(t.address_name(0) == "x");
  CHECK(t.address_name(4) == "x+4");
  CHECK(t.address_name(0x40) == "0x40");
  REQUIRE(t.violation);
  CHECK(t.violation->property == "lost_update");
  CHECK(t.violation->thread == -1);
  CHECK(t.outcome == "violation");
  CHECK(t.end_time == 8);
  REQUIRE(t.steps.size() == 5);
  CHECK(t.steps.back().kind == Step::Kind::violation);
  CHECK(t.describe(t.ops[0]).find("t0: plain_load x -> 0") == 0);
  CHECK(t.cpus.size() == 2);
  CHECK(t.cpus[1].intervals.empty());  // an exploring run has no CPU occupancy
}

TEST_CASE("view: ops are sorted by time stably, wake edges reach the target's next running interval") {
  // Timed-run order: the target's state is written before the unpark, with a later time.
  const std::string text = kHeader + R"({"t":0,"ev":"thread","th":0,"name":"waiter","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"waker","cpu":1}
{"t":0,"ev":"cpu","cpu":0,"th":0}
{"t":0,"ev":"cpu","cpu":1,"th":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":10,"ev":"op","th":0,"cpu":0,"op":"park","lat":0}
{"t":10,"ev":"state","th":0,"state":"parked"}
{"t":10,"ev":"cpu","cpu":0,"th":-1}
{"t":50,"ev":"state","th":0,"state":"running"}
{"t":50,"ev":"cpu","cpu":0,"th":0}
{"t":20,"ev":"op","th":1,"cpu":1,"op":"unpark","target":0,"woke":true}
{"t":20,"ev":"op","th":1,"cpu":1,"op":"rmw","rmw":"cas","addr":"0x40","size":4,"old":1,"val":1,"ok":false,"lat":5}
{"t":60,"ev":"state","th":0,"state":"finished"}
{"t":70,"ev":"state","th":1,"state":"finished"}
{"t":70,"ev":"future_kind","x":1}
{"t":70,"ev":"end","steps":3,"outcome":"pass"}
{"t":99,"ev":"garbage after end"}
)";
  const Trace t = parse_trace(text);
  REQUIRE(t.ops.size() == 3);
  CHECK(t.ops[0].op == "park");
  CHECK(t.ops[1].op == "unpark");  // file order kept among equal times
  CHECK(t.ops[2].rmw == "cas");
  CHECK(t.ops[2].ok == false);
  CHECK(t.ops[2].old == 1u);
  REQUIRE(t.wakes.size() == 1);
  CHECK(t.wakes[0].from == 1);
  CHECK(t.wakes[0].to == 0);
  CHECK(t.wakes[0].t_unpark == 20);
  CHECK(t.wakes[0].t_running == 50);
  const auto& w = t.threads[0].intervals;
  REQUIRE(w.size() == 3);
  CHECK(w[1].state == ThreadState::parked);
  CHECK(w[1].begin == 10);
  CHECK(w[1].end == 50);
  CHECK(w[2].end == 60);
  REQUIRE(t.cpus[0].intervals.size() == 2);
  CHECK(t.cpus[0].intervals[0].end == 10);
  CHECK(t.cpus[0].intervals[1].begin == 50);
  CHECK(t.cpus[0].intervals[1].end == 70);
  CHECK(!t.violation);
}

TEST_CASE("view: bad files are errors naming the line, never crashes") {
  CHECK(error_line("") == 1);
  CHECK(error_line("\n\n") == 1);
  CHECK(error_line("hello\n") == 1);
  CHECK(error_line("[1,2]\n") == 1);
  CHECK(error_line(R"({"format":"other","version":1})"
                   "\n") == 1);
  CHECK(error_line(R"({"format":"lockstep-trace","version":2})"
                   "\n") == 1);
  CHECK(error_line(R"({"format":"lockstep-trace"})"
                   "\n") == 1);
  // Truncated: no end event, or the last line cut in the middle.
  const std::string lines = kRacy.substr(0, kRacy.find(R"({"t":8,"ev":"end")"));
  CHECK(error_line(lines) == 13);
  CHECK(error_line(kRacy.substr(0, kRacy.size() - 20)) == 14);
  CHECK(error_line(kRacy.substr(0, kRacy.size() / 2)) > 1);
  // Members missing, mistyped, out of range.
  CHECK(error_line(kHeader + R"({"ev":"state","th":0,"state":"running"})"
                             "\n") == 2);
  CHECK(error_line(kHeader + R"({"t":0,"ev":"state","th":"zero","state":"running"})"
                             "\n") == 2);
  CHECK(error_line(kHeader + R"({"t":0,"ev":"state","th":100000000,"state":"running"})"
                             "\n") == 2);
  CHECK(error_line(kHeader + R"({"t":0,"ev":"op","th":0,"cpu":0,"op":"load","addr":"12","lat":1})"
                             "\n") == 2);
  CHECK(error_line(kHeader + R"({"t":0,"ev":"op","th":0,"cpu":0,"op":"load","addr":"0x0","lat":1,"src":"l1","st":"X"})"
                             "\n") == 2);
  CHECK(error_line(kHeader + "\n" +
                   R"({"t":-1,"ev":"end","steps":0,"outcome":"pass"})"
                   "\n") == 3);
  try {
    parse_trace(kHeader + "{not json\n" +
                R"({"t":0,"ev":"end","steps":0,"outcome":"pass"})"
                "\n");
    FAIL("no error");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()).find("line 2") == 0);
  }
  CHECK_THROWS_AS(load_trace("/nonexistent/trace.jsonl"), TraceError);
}

// A file is parsed as it is read, never held whole (load_trace): what it gives must be what
// parsing the whole text gives, field by field; and the records stay compact (a big trace's
// footprint is its records: tests/gui/footprint_test.sh checks it under the file's size).
TEST_CASE("view: a trace read from its file as it streams equals the trace parsed from its text") {
  static_assert(sizeof(Operation) <= 96, "an operation's record grew: a big trace's footprint grows with it");
  const auto path = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "streamed");
  REQUIRE(!path.empty());
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Trace streamed = load_trace(path);
  const Trace whole = parse_trace(text, path.string());
  REQUIRE(streamed.ops.size() == whole.ops.size());
  REQUIRE(!streamed.ops.empty());
  CHECK(streamed.ops.capacity() == streamed.ops.size());  // room reserved for exactly its operations
  for (std::size_t i = 0; i < whole.ops.size(); ++i) {
    const Operation& a = streamed.ops[i];
    const Operation& b = whole.ops[i];
    CHECK((a.t == b.t && a.lat == b.lat && a.line == b.line && a.thread == b.thread && a.cpu == b.cpu));
    CHECK((a.op == b.op && a.rmw == b.rmw && a.src == b.src && a.step == b.step));
    CHECK((a.addr == b.addr && a.val == b.val && a.old == b.old && a.size == b.size && a.ok == b.ok));
    CHECK((a.target == b.target && a.peer == b.peer && a.woke == b.woke && a.state == b.state));
    CHECK(whole.describe(b) == streamed.describe(a));
  }
  CHECK(streamed.locks.size() == whole.locks.size());
  CHECK(streamed.steps.size() == whole.steps.size());
  CHECK(streamed.end_time == whole.end_time);
  // Names: one id per text, read back as that text; the empty name is empty.
  const Name load("load"), again(std::string("lo") + "ad"), other("store");
  CHECK(load == again);
  CHECK(!(load == other));
  CHECK(load.view() == "load");
  CHECK(Name().empty());
  CHECK(Name("").empty());
  CHECK(fmt::format("{}", other) == "store");
  const Maybe<std::uint64_t> none, some(7);
  CHECK(!none.has_value());
  CHECK(some.value_or(0) == 7);
  CHECK(std::optional<std::uint64_t>(some) == std::optional<std::uint64_t>(7));
}

TEST_CASE("view: every byte-prefix of a real trace parses or fails with TraceError") {
  const std::string full = kRacy;
  for (std::size_t n = 0; n < full.size(); ++n) {
    try {
      parse_trace(full.substr(0, n));
    } catch (const TraceError&) {
    }
  }
  CHECK_NOTHROW(parse_trace(full));
}

TEST_CASE("view: the futex lost-wakeup counterexample recorded by lockstep check") {
  const auto path = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "lost-wakeup");
  REQUIRE(!path.empty());
  const Trace t = load_trace(path);
  REQUIRE(t.violation);
  CHECK(t.violation->property == "lost_wakeup");
  CHECK(t.outcome == "violation");
  REQUIRE(t.threads.size() == 2);
  CHECK(t.threads[0].name == "waiter");
  CHECK(t.threads[1].name == "waker");
  CHECK(t.memory_model == "tso");
  CHECK(!t.ops.empty());
  bool parked = false;
  for (const StateInterval& iv : t.threads[0].intervals) parked = parked || iv.state == ThreadState::parked;
  CHECK(parked);  // the waiter sleeps for good
  CHECK(t.steps.size() == t.ops.size() + 1);

  // Design-level names and protocol steps (docs/traces.md, "Names"), as the command line
  // prints them: the waker reads the waiter count of the bucket the waiter then counts on.
  std::string waker_read;
  std::string waiter_count;
  bool waiter_entry_named = false;
  for (const Operation& op : t.ops) {
    if (op.step == "futex_wake > read the waiter count (no barrier B)") waker_read = t.describe(op);
    if (op.step.view().starts_with("futex_wait > count the waiter")) waiter_count = t.describe(op);
    if (op.addr && t.address_name(*op.addr) == "futex_q[waiter].queued") waiter_entry_named = true;
    if (op.op == "drain") CHECK(op.step.empty());  // a drain belongs to the buffer, not to a step
  }
  CHECK(waker_read.starts_with("waker: futex_wake > read the waiter count (no barrier B): load bucket["));
  CHECK(waker_read.find("].waiters -> 0") != std::string::npos);
  const std::string bucket =
      waker_read.substr(waker_read.find("bucket["), waker_read.find("].waiters") - waker_read.find("bucket["));
  CHECK(waiter_count.find(bucket + "].waiters 0 -> 1") != std::string::npos);
  CHECK(waiter_entry_named);
  CHECK(t.address_name(0) == "f");
  CHECK(t.address_name(0xffff'ffff'0000) == "0xffffffff0000");
}

TEST_CASE(
    "view: the fixed futex scenario recorded by lockstep check parses without a violation (its trace has no wakeup)") {
  const auto path = testing::record_trace("scenarios/futex/lost-wakeup-fixed.yaml", "fixed");
  REQUIRE(!path.empty());
  const Trace t = load_trace(path);
  CHECK(!t.violation);
  for (const WakeEdge& e : t.wakes) {
    CHECK(e.t_running >= e.t_unpark);
    CHECK(t.ops[e.op].op == "unpark");
  }
}

}  // namespace
}  // namespace lockstep::view
