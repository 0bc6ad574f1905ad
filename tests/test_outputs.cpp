// The command outputs: result JSON, JUnit XML, sweep CSV, summary table, Chrome export.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/junit.hpp"
#include "cli/measurements_csv.hpp"
#include "cli/summary_table.hpp"
#include "cli/sweep_csv.hpp"
#include "report/result_json.hpp"
#include "sim/exec/sim_platform.hpp"
#include "sim/timed_strategy.hpp"
#include "trace/chrome_trace.hpp"

using namespace lockstep;
using lockstep::report::MachineMeasurements;
using lockstep::report::RowReport;
using lockstep::report::ScenarioReport;
using namespace lockstep::cli;
using namespace lockstep::report;
using Json = nlohmann::ordered_json;

namespace {

RowReport passing_row() {
  RowReport r;
  r.result = "pass";
  r.expected = "pass";
  r.matched = true;
  r.strategy = "random";
  r.seed = 7;
  r.executions = 1000;
  r.sim_ops = 52000;
  r.steps = 52;
  r.virtual_time_ns = 1234;
  r.elapsed_s = 0.25;
  r.trace_sha256 = "ab12";
  return r;
}

RowReport violating_row() {
  RowReport r = passing_row();
  r.result = "violation";
  r.property = "lost_update";
  r.message = "counter is 1, expected 2";
  r.expected = "violation: lost_update";
  r.executions = 12;
  r.schedule_path = "out/racy.schedule";
  r.replay_command = "lockstep replay out/racy.schedule";
  return r;
}

ScenarioReport single(RowReport row, std::string path = "scenarios/racy.yaml") {
  ScenarioReport s;
  s.scenario = std::move(path);
  s.name = "racy counter";
  s.command = "check";
  s.rows.push_back(std::move(row));
  return s;
}

ScenarioReport swept() {
  ScenarioReport s;
  s.scenario = "scenarios/sweep.yaml";
  s.name = "lock sweep";
  s.command = "run";
  s.swept = true;
  RowReport a = passing_row();
  a.params = {{"design.lock", "ticket"}, {"threads", "2"}};
  RowReport b = violating_row();
  b.params = {{"design.lock", "tas, \"fast\""}, {"threads", "4"}};
  b.expected = "pass";
  b.matched = false;
  s.rows = {a, b};
  return s;
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

}  // namespace

TEST_CASE("result JSON of a passing scenario has the documented fields in order", "[outputs]") {
  RowReport r = passing_row();
  r.trace_path = "out/racy.trace";
  const Json j = to_json(single(r));
  CHECK(keys_of(j) == std::vector<std::string>{"scenario",     "name",
                                               "command",      "platform",
                                               "result",       "expected",
                                               "matched",      "strategy",
                                               "seed",         "executions",
                                               "exhaustive",   "sim_ops",
                                               "steps",        "virtual_time_ns",
                                               "elapsed_s",    "sim_ops_per_host_s",
                                               "pruned",       "max_depth",
                                               "bounds",       "executions_per_s",
                                               "workers",      "internal_errors",
                                               "trace_sha256", "trace"});
  CHECK(j["result"] == "pass");
  CHECK(j["seed"] == 7);
  CHECK(j["elapsed_s"] == 0.25);
}

TEST_CASE("result JSON of a violation names the property, schedule and replay command", "[outputs]") {
  const Json j = to_json(single(violating_row()));
  CHECK(keys_of(j) ==
        std::vector<std::string>{
            "scenario",     "name",      "command",       "platform",         "result",    "property",
            "message",      "expected",  "matched",       "strategy",         "seed",      "executions",
            "exhaustive",   "sim_ops",   "steps",         "virtual_time_ns",  "elapsed_s", "sim_ops_per_host_s",
            "pruned",       "max_depth", "bounds",        "executions_per_s", "workers",   "internal_errors",
            "trace_sha256", "schedule",  "replay_command"});
  CHECK(j["property"] == "lost_update");
  CHECK(j["replay_command"] == "lockstep replay out/racy.schedule");
}

TEST_CASE("result JSON of a replayed sweep row names the row's params", "[outputs]") {
  RowReport r = violating_row();
  r.params = {{"threads", "4"}};
  ScenarioReport s = single(r);
  s.command = "replay";
  const Json j = to_json(s);
  CHECK(keys_of(j).at(4) == "params");
  CHECK(j["params"]["threads"] == "4");
  CHECK_THAT(summary_table({s}), Catch::Contains("scenarios/racy.yaml [threads=4]  violation: lost_update"));
}

TEST_CASE("result JSON of a sweep aggregates and lists rows with their params", "[outputs]") {
  const Json j = to_json(swept());
  CHECK(keys_of(j) ==
        std::vector<std::string>{"scenario", "name", "command", "platform", "swept", "result", "matched", "rows"});
  CHECK(j["result"] == "violation");
  CHECK(j["matched"] == false);
  REQUIRE(j["rows"].size() == 2);
  CHECK(keys_of(j["rows"][0]).front() == "params");
  CHECK(keys_of(j["rows"][0]["params"]) == std::vector<std::string>{"design.lock", "threads"});
  CHECK(j["rows"][1]["params"]["threads"] == "4");
}

TEST_CASE("results_json gives one object for one scenario and a list otherwise", "[outputs]") {
  const std::string one = results_json({single(passing_row())});
  CHECK(one.back() == '\n');
  CHECK(one.find("\n  \"name\": \"racy counter\"") != std::string::npos);
  CHECK(Json::parse(one).is_object());
  CHECK(Json::parse(results_json({single(passing_row()), swept()})).size() == 2);
  CHECK(Json::parse(results_json({})).is_array());
  ScenarioReport bad = single(passing_row());
  bad.rows.push_back(passing_row());
  CHECK_THROWS_AS(to_json(bad), std::invalid_argument);
}

TEST_CASE("result JSON survives bytes that are not UTF-8", "[outputs]") {
  RowReport r = violating_row();
  r.message = "bad \xff byte";
  CHECK_NOTHROW(Json::parse(results_json({single(r)})));
}

TEST_CASE("xml_escape escapes markup and replaces what XML 1.0 forbids", "[outputs]") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(xml_escape("x\x01y\x1bz") == "x\xEF\xBF\xBDy\xEF\xBF\xBDz");
  CHECK(xml_escape("tab\tline\n") == "tab\tline\n");
  CHECK(xml_escape("tab\tline\n", true) == "tab&#9;line&#10;");
  CHECK(xml_escape("caf\xC3\xA9 \xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");
  CHECK(xml_escape("\xff\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // stray and overlong
  CHECK(xml_escape("\xEF\xBF\xBE") == "\xEF\xBF\xBD");                          // U+FFFE
  CHECK(xml_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("JUnit XML has one testcase per row and a failure per mismatch", "[outputs]") {
  RowReport r = violating_row();
  r.message = "a <b> & \x02 c";
  const std::string xml = junit_xml({single(r), swept()});
  CHECK(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  CHECK_THAT(xml,
             Catch::Contains("<testsuite name=\"lockstep\" tests=\"3\" failures=\"1\" errors=\"0\" time=\"0.750\""));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"scenarios/racy.yaml\" name=\"racy counter\" time=\"0.250\">"));
  CHECK_THAT(xml, Catch::Contains("name=\"lock sweep [design.lock=tas, &quot;fast&quot;, threads=4]\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"expected pass, got violation: lost_update\" type=\"mismatch\">"));
  CHECK_THAT(xml, Catch::Contains("replay: lockstep replay out/racy.schedule"));
  CHECK_THAT(xml, Catch::Contains("message: a &lt;b&gt; &amp; \xEF\xBF\xBD c"));
  CHECK_THAT(xml, Catch::Contains("<system-out>result: violation: lost_update\nexpected: violation: lost_update\n"));
  CHECK(xml.ends_with("  </testsuite>\n</testsuites>\n"));
}

TEST_CASE("sweep CSV has the param columns first and quotes as RFC 4180 says", "[outputs]") {
  const std::string csv = sweep_csv(swept());
  const std::string expected =
      "design.lock,threads,result,property,matched,executions,sim_ops,steps,virtual_time_ns,elapsed_s,trace_sha256\n"
      "ticket,2,pass,,true,1000,52000,52,1234,0.250000,ab12\n"
      "\"tas, \"\"fast\"\"\",4,violation,lost_update,false,12,52000,52,1234,0.250000,ab12\n";
  CHECK(csv == expected);
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
}

TEST_CASE("summary table aligns columns and counts matches", "[outputs]") {
  const std::string table = summary_table({single(violating_row()), swept()});
  const std::string expected =
      "scenario                              expected                result                  executions    time\n"
      "scenarios/racy.yaml                   violation: lost_update  violation: lost_update          12  0.250s  ok\n"
      "scenarios/sweep.yaml                  pass                    violation: lost_update        1012  0.500s  "
      "MISMATCH\n"
      "  design.lock=ticket, threads=2       pass                    pass                          1000  0.250s  ok\n"
      "  design.lock=tas, \"fast\", threads=4  pass                    violation: lost_update          12  0.250s  "
      "MISMATCH\n"
      "2 scenarios, 1 matched, 1 mismatched\n";
  CHECK(table == expected);
  CHECK(table.find('\x1b') == std::string::npos);
  const std::string colored = summary_table({single(passing_row())}, true);
  CHECK_THAT(colored, Catch::Contains("\x1b[32mok\x1b[0m"));
  CHECK(colored.ends_with("1 scenario, 1 matched, 0 mismatched\n"));
}

namespace {

// A waiter that parks and a waker that unparks it, as the engine writes them: the target's
// state event comes before the unpark line, at the time the target runs again.
constexpr std::string_view kTrace =
    R"({"format":"lockstep-trace","version":1,"scenario":"s.yaml","seed":7})"
    "\n"
    R"({"t":0,"ev":"thread","th":0,"name":"waiter","cpu":0})"
    "\n"
    R"({"t":0,"ev":"thread","th":1,"name":"waker","cpu":1})"
    "\n"
    R"({"t":0,"ev":"label","addr":"0x1000","size":8,"name":"lock"})"
    "\n"
    R"({"t":0,"ev":"cpu","cpu":0,"th":0})"
    "\n"
    R"({"t":0,"ev":"cpu","cpu":1,"th":1})"
    "\n"
    R"({"t":0,"ev":"state","th":0,"state":"running"})"
    "\n"
    R"({"t":0,"ev":"state","th":1,"state":"running"})"
    "\n"
    R"({"t":0,"ev":"op","th":0,"cpu":0,"op":"load","addr":"0x1004","size":4,"val":0,"lat":40})"
    "\n"
    R"({"t":40,"ev":"op","th":0,"cpu":0,"op":"park","lat":0})"
    "\n"
    R"({"t":40,"ev":"state","th":0,"state":"parked"})"
    "\n"
    R"({"t":40,"ev":"cpu","cpu":0,"th":-1})"
    "\n"
    R"({"t":100,"ev":"op","th":1,"cpu":1,"op":"rmw","rmw":"cas","addr":"0x1000","size":8,"old":0,"val":1,"ok":true,"lat":60})"
    "\n"
    R"({"t":1500,"ev":"state","th":0,"state":"running"})"
    "\n"
    R"({"t":1500,"ev":"cpu","cpu":0,"th":0})"
    "\n"
    R"({"t":160,"ev":"op","th":1,"cpu":1,"op":"unpark","target":0,"woke":true})"
    "\n"
    R"({"t":200,"ev":"op","th":1,"cpu":1,"op":"store","addr":"0x2000","size":8,"val":3,"lat":50})"
    "\n"
    R"({"t":250,"ev":"state","th":1,"state":"finished"})"
    "\n"
    R"({"t":250,"ev":"cpu","cpu":1,"th":-1})"
    "\n"
    R"({"t":1601,"ev":"violation","th":0,"property":"lost_update","msg":"x != 2"})"
    "\n"
    R"({"t":1601,"ev":"end","steps":6,"outcome":"violation"})"
    "\n";

const Json* find_event(const Json& events, std::string_view ph, std::string_view name, double ts) {
  for (const Json& e : events)
    if (e["ph"] == ph && e.value("name", "") == name && e.value("ts", -1.0) == ts) return &e;
  return nullptr;
}

std::size_t count_phase(const Json& events, std::string_view ph) {
  std::size_t n = 0;
  for (const Json& e : events) n += e["ph"] == ph ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("Chrome export has thread states, CPU occupancy and named operations", "[outputs]") {
  const Json doc = Json::parse(trace::chrome_trace_json(kTrace));
  CHECK(keys_of(doc) == std::vector<std::string>{"traceEvents", "displayTimeUnit", "metadata"});
  CHECK(doc["displayTimeUnit"] == "ns");
  CHECK(doc["metadata"]["scenario"] == "s.yaml");
  CHECK(doc["metadata"]["seed"] == 7);
  const Json& ev = doc["traceEvents"];

  const Json* parked = find_event(ev, "X", "parked", 0.04);
  REQUIRE(parked != nullptr);
  CHECK((*parked)["pid"] == 1);
  CHECK((*parked)["tid"] == 1);
  CHECK((*parked)["dur"] == 1.46);
  REQUIRE(find_event(ev, "X", "running", 1.5) != nullptr);
  CHECK((*find_event(ev, "X", "running", 1.5))["dur"] == Approx(0.101));  // closed by `end`
  CHECK((*find_event(ev, "X", "running", 0.0))["dur"] != nullptr);
  CHECK(find_event(ev, "X", "ready", 0.0) == nullptr);  // the implicit ready interval is empty

  const Json* on_cpu = find_event(ev, "X", "waiter", 1.5);
  REQUIRE(on_cpu != nullptr);
  CHECK((*on_cpu)["pid"] == 2);
  CHECK((*on_cpu)["tid"] == 1);
  REQUIRE(find_event(ev, "X", "waker", 0.0) != nullptr);
  CHECK((*find_event(ev, "X", "waker", 0.0))["dur"] == 0.25);

  const Json* load = find_event(ev, "X", "load lock+4", 0.0);
  REQUIRE(load != nullptr);
  CHECK((*load)["dur"] == 0.04);
  CHECK((*load)["args"]["addr"] == "0x1004");
  const Json* cas = find_event(ev, "X", "cas lock", 0.1);
  REQUIRE(cas != nullptr);
  CHECK((*cas)["args"]["ok"] == true);
  CHECK((*cas)["args"]["old"] == 0);
  CHECK(find_event(ev, "X", "store 0x2000", 0.2) != nullptr);
  CHECK(find_event(ev, "i", "park", 0.04) != nullptr);
  CHECK(find_event(ev, "i", "unpark waiter", 0.16) != nullptr);
}

namespace {

// Two threads hand a lock over, a reader holds it shared, a waiter queues on a futex bucket
// and is woken; the machine model's members ride on an operation.
constexpr std::string_view kLockTrace =
    R"({"format":"lockstep-trace","version":1})"
    "\n"
    R"({"t":0,"ev":"thread","th":0,"name":"a","cpu":0})"
    "\n"
    R"({"t":0,"ev":"thread","th":1,"name":"b","cpu":1})"
    "\n"
    R"({"t":0,"ev":"label","addr":"0x40","size":8,"name":"L"})"
    "\n"
    R"({"t":0,"ev":"state","th":0,"state":"running"})"
    "\n"
    R"({"t":0,"ev":"state","th":1,"state":"running"})"
    "\n"
    R"({"t":10,"ev":"op","th":0,"cpu":0,"op":"rmw","rmw":"exchange","addr":"0x40","size":4,"old":0,"val":1,"ok":true,"lat":90,"src":"remote_cache","peer":1})"
    "\n"
    R"({"t":100,"ev":"lock","th":0,"addr":"0x40","act":"acquire","mode":"exclusive"})"
    "\n"
    R"({"t":110,"ev":"lock","th":1,"addr":"0x40","act":"wait","mode":"exclusive"})"
    "\n"
    R"({"t":120,"ev":"futex","th":1,"act":"enqueue","bucket":3,"key":"0x80","waiter":1})"
    "\n"
    R"({"t":300,"ev":"lock","th":0,"addr":"0x40","act":"release","mode":"exclusive"})"
    "\n"
    R"({"t":310,"ev":"futex","th":0,"act":"dequeue","bucket":3,"key":"0x80","waiter":1})"
    "\n"
    R"({"t":400,"ev":"lock","th":1,"addr":"0x40","act":"acquire","mode":"exclusive"})"
    "\n"
    R"({"t":500,"ev":"lock","th":1,"addr":"0x40","act":"release","mode":"exclusive"})"
    "\n"
    R"({"t":550,"ev":"lock","th":1,"addr":"0x40","act":"acquire","mode":"shared"})"
    "\n"
    R"({"t":600,"ev":"lock","th":0,"addr":"0x40","act":"acquire","mode":"shared"})"
    "\n"
    R"({"t":700,"ev":"end","steps":3,"outcome":"pass"})"
    "\n";

}  // namespace

TEST_CASE("Chrome export shows lock holds, hand-offs and futex queue lengths", "[outputs]") {
  const Json doc = Json::parse(trace::chrome_trace_json(kLockTrace));
  const Json& ev = doc["traceEvents"];
  const Json* first = find_event(ev, "b", "L", 0.1);
  REQUIRE(first != nullptr);
  CHECK((*first)["pid"] == 3);
  CHECK((*first)["args"]["thread"] == "a");
  const Json* first_end = find_event(ev, "e", "L", 0.3);
  REQUIRE(first_end != nullptr);
  CHECK((*first_end)["id"] == (*first)["id"]);
  REQUIRE(find_event(ev, "b", "L", 0.4) != nullptr);
  const Json* reader = find_event(ev, "b", "L", 0.6);
  REQUIRE(reader != nullptr);
  CHECK((*reader)["args"]["mode"] == "shared");
  CHECK((*reader)["args"]["thread"] == "a");
  REQUIRE(find_event(ev, "b", "L", 0.55) != nullptr);  // b reads too, at the same time
  CHECK(find_event(ev, "e", "L", 0.7) != nullptr);     // still held at the end

  // One hand-off, a to b. b takes the lock again itself (no arrow), then a joins b as a reader
  // (no arrow either: the last release was b's, and b took it back).
  CHECK(count_phase(ev, "s") == 1);
  const Json* from = find_event(ev, "s", "handoff", 0.3);
  const Json* to = find_event(ev, "f", "handoff", 0.4);
  REQUIRE(from != nullptr);
  REQUIRE(to != nullptr);
  CHECK((*from)["id"] == (*to)["id"]);
  CHECK((*from)["tid"] == 1);
  CHECK((*to)["tid"] == 2);

  const Json* queued = find_event(ev, "C", "bucket 3", 0.12);
  REQUIRE(queued != nullptr);
  CHECK((*queued)["args"]["waiters"] == 1);
  REQUIRE(find_event(ev, "C", "bucket 3", 0.31) != nullptr);
  CHECK((*find_event(ev, "C", "bucket 3", 0.31))["args"]["waiters"] == 0);

  const Json* exchange = find_event(ev, "X", "exchange L", 0.01);
  REQUIRE(exchange != nullptr);
  CHECK((*exchange)["args"]["src"] == "remote_cache");
  CHECK((*exchange)["args"]["peer"] == 1);
}

TEST_CASE("Chrome export draws wakeups as flows and marks violations", "[outputs]") {
  const Json doc = Json::parse(trace::chrome_trace_json(kTrace));
  const Json& ev = doc["traceEvents"];
  CHECK(count_phase(ev, "s") == 1);
  CHECK(count_phase(ev, "f") == 1);
  const Json* from = find_event(ev, "s", "wake", 0.16);
  const Json* to = find_event(ev, "f", "wake", 1.5);
  REQUIRE(from != nullptr);
  REQUIRE(to != nullptr);
  CHECK((*from)["id"] == (*to)["id"]);
  CHECK((*from)["tid"] == 2);
  CHECK((*to)["tid"] == 1);
  CHECK((*to)["bp"] == "e");

  const Json* violation = find_event(ev, "i", "VIOLATION lost_update", 1.601);
  REQUIRE(violation != nullptr);
  CHECK((*violation)["s"] == "g");
  CHECK((*violation)["args"]["message"] == "x != 2");

  std::vector<std::string> names;
  for (const Json& e : ev)
    if (e["ph"] == "M" && e["name"] == "thread_name") names.push_back(e["args"]["name"]);
  CHECK(names == std::vector<std::string>{"waiter", "waker", "cpu 0", "cpu 1"});
}

TEST_CASE("Chrome export rejects what is not a lockstep trace, naming the line", "[outputs]") {
  std::string corrupt(kTrace);
  corrupt.insert(corrupt.find("{\"t\":40,"), "{\"t\":5,\"ev\":\n");
  CHECK_THROWS_WITH(trace::chrome_trace_json(corrupt), Catch::Contains("line 10") && Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(trace::chrome_trace_json("{\"format\":\"other\"}\n"),
                    Catch::Contains("line 1: not a lockstep trace"));
  CHECK_THROWS_WITH(trace::chrome_trace_json("{\"format\":\"lockstep-trace\",\"version\":2}\n"),
                    Catch::Contains("unsupported trace version 2"));
  CHECK_THROWS_WITH(trace::chrome_trace_json(""), Catch::Contains("line 1"));
  std::string missing(kTrace);
  missing.insert(missing.find("{\"t\":40,"), "{\"t\":1,\"ev\":\"state\",\"th\":0}\n");
  CHECK_THROWS_WITH(trace::chrome_trace_json(missing), Catch::Contains("line 10: the event has no 'state'"));
  std::string bad_addr(kTrace);
  bad_addr.insert(bad_addr.find("{\"t\":40,"), R"({"t":1,"ev":"op","th":0,"cpu":0,"op":"load","addr":"12","lat":1})"
                                               "\n");
  CHECK_THROWS_WITH(trace::chrome_trace_json(bad_addr), Catch::Contains("line 10: 'addr' must be a hex address"));
}

namespace {

using P = sim::SimPlatform;

// Six threads on two CPUs increment a counter; thread 0 then parks until the last one to
// finish unparks it, so the trace has preemptions, a park and a wakeup.
struct ParkingCounter final : sim::SimWorkload {
  static constexpr int kThreads = 6;
  static constexpr int kIncrements = 20;
  P::Atomic<std::uint64_t>* counter = nullptr;
  P::Atomic<std::uint64_t>* done = nullptr;

  void setup(sim::Engine& e) override {
    counter = make_on<P, P::Atomic<std::uint64_t>>(0, 8);
    done = make_on<P, P::Atomic<std::uint64_t>>(0, 8);
    P::label(counter, 8, "counter");
    P::label(done, 8, "done");
    for (int i = 0; i < kThreads; ++i) e.spawn("t" + std::to_string(i), i % 2, [this, i] { body(i); });
  }
  void body(int i) {
    for (int k = 0; k < kIncrements; ++k) counter->fetch_add(1);
    if (done->fetch_add(1) == kThreads - 1) P::unpark(0);
    if (i == 0)
      while (done->load() != kThreads) P::park();
  }
  void check(sim::Engine&) override {}
};

std::int64_t nanos(const Json& micros) { return std::llround(micros.get<double>() * 1000); }

// Slices of one track must nest or be disjoint, or a viewer cannot stack them. Compared in
// nanoseconds, as importers do, since microsecond decimals do not add up exactly.
std::size_t overlapping_slices(const Json& events) {
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> tracks;
  for (const Json& e : events)
    if (e["ph"] == "X") tracks[{e["pid"], e["tid"]}].emplace_back(nanos(e["ts"]), nanos(e["ts"]) + nanos(e["dur"]));
  std::size_t bad = 0;
  for (const auto& [track, slices] : tracks)
    for (const auto& [a0, a1] : slices)
      for (const auto& [b0, b1] : slices) {
        const bool disjoint = a1 <= b0 || b1 <= a0;
        const bool nested = (a0 <= b0 && b1 <= a1) || (b0 <= a0 && a1 <= b1);
        bad += disjoint || nested ? 0 : 1;
      }
  return bad;
}

}  // namespace

TEST_CASE("Chrome export of an engine trace is deterministic and well formed", "[outputs]") {
  ParkingCounter w;
  sim::FlatCostModel costs{sim::FlatCosts{}};
  sim::Engine engine{sim::MachineShape{{0, 0, 1, 1}}, costs};
  sim::TimedStrategy timed(3);
  sim::TraceRecorder trace(R"("seed":3)");
  const auto result = engine.run(w, timed, &trace, 0);
  REQUIRE_FALSE(result.violation);
  const std::string out = trace::chrome_trace_json(trace.text());
  CHECK(out == trace::chrome_trace_json(trace.text()));
  const Json doc = Json::parse(out);
  std::size_t cpu_slices = 0;
  std::size_t increments = 0;
  for (const Json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    CHECK(e["dur"].get<double>() >= 0);
    cpu_slices += e["pid"] == 2 ? 1 : 0;
    increments += e["name"] == "fetch_add counter" ? 1 : 0;
  }
  CHECK(cpu_slices >= ParkingCounter::kThreads);
  CHECK(increments == ParkingCounter::kThreads * ParkingCounter::kIncrements);
  const bool woke = trace.text().find("\"woke\":true") != std::string::npos;
  CHECK(count_phase(doc["traceEvents"], "s") == (woke ? 1 : 0));
  CHECK(count_phase(doc["traceEvents"], "f") == (woke ? 1 : 0));
  CHECK(overlapping_slices(doc["traceEvents"]) == 0);
}

TEST_CASE("machine measurements as CSV", "[outputs]") {
  MachineMeasurements m;
  m.histogram = {{85, 86, 10}, {135, 136, 7}};
  m.c2c_cpus = {0, 4};
  m.c2c_ns = {{0, 75.2}, {75.2, 0}};
  CHECK(histogram_csv(m) == "lo_ns,hi_ns,count\n85,86,10\n135,136,7\n");
  CHECK(c2c_csv(m) == "cpu,0,4\n0,0.0,75.2\n4,75.2,0.0\n");
}
