// Native traces in the viewer and the compare view's figures: the figures of two
// hand-written traces worked out by hand, a native trace recorded by `lockstep native
// --trace` read by the viewer's model, and `lockstep-view --compare` of a native and a
// simulated ping-pong.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "gui/model/compare.hpp"
#include "gui/model/trace_metrics.hpp"
#include "gui/render/compare.hpp"
#include "gui/tests/result_helpers.hpp"

namespace lockstep::view {
namespace {

using testing::quoted;
using testing::run_view;

const MetricRow& row(const std::vector<MetricRow>& rows, const std::string& name) {
  for (const MetricRow& r : rows)
    if (r.name == name) return r;
  FAIL("no row " << name);
  throw;
}

// A: simulated, 1000 ns. t0 holds lock 0x10 [0, 100), t1 waits for it from 50, holds it
// [100, 150); t1 sleeps in a futex_wait (queued at 200) until t0 wakes it (dequeue, unpark
// at 300), running again at 340.
const std::string kSim =
    R"({"format":"lockstep-trace","version":1,"scenario":"s.yaml","name":"n","params":{},"strategy":"timed","seed":1,"execution":0,"memory_model":"sc","cpus":2,"node_of_cpu":[0,0]}
{"t":0,"ev":"thread","th":0,"name":"t0","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"t1","cpu":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":0,"ev":"step","th":0,"act":"begin","what":"futex_wake"}
{"t":0,"ev":"lock","th":0,"addr":"0x10","act":"acquire","mode":"exclusive"}
{"t":50,"ev":"lock","th":1,"addr":"0x10","act":"wait","mode":"exclusive"}
{"t":100,"ev":"lock","th":0,"addr":"0x10","act":"release","mode":"exclusive"}
{"t":100,"ev":"step","th":0,"act":"end"}
{"t":100,"ev":"lock","th":1,"addr":"0x10","act":"acquire","mode":"exclusive"}
{"t":150,"ev":"lock","th":1,"addr":"0x10","act":"release","mode":"exclusive"}
{"t":190,"ev":"step","th":1,"act":"begin","what":"futex_wait"}
{"t":190,"ev":"step","th":1,"act":"begin","what":"queue the waiter on the bucket"}
{"t":200,"ev":"futex","th":1,"act":"enqueue","bucket":3,"key":"0x40","waiter":1}
{"t":200,"ev":"step","th":1,"act":"end"}
{"t":201,"ev":"op","th":1,"cpu":1,"op":"park","lat":0}
{"t":201,"ev":"state","th":1,"state":"parked"}
{"t":290,"ev":"futex","th":0,"act":"dequeue","bucket":3,"key":"0x40","waiter":1}
{"t":300,"ev":"op","th":0,"cpu":0,"op":"unpark","target":1,"woke":true}
{"t":340,"ev":"state","th":1,"state":"running"}
{"t":350,"ev":"step","th":1,"act":"end"}
{"t":1000,"ev":"end","steps":9,"outcome":"pass"}
)";

// B: native, 4000 ns, the same lock twice as slow and three holds; no futex events and no steps.
const std::string kNative =
    R"({"format":"lockstep-trace","version":1,"platform":"native","scenario":"s.yaml","name":"n","params":{},"strategy":"native","clock":"tsc","events_per_thread":1024,"dropped_events":0,"cpus":2,"node_of_cpu":[0,0]}
{"t":0,"ev":"thread","th":0,"name":"t0","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"t1","cpu":1}
{"t":10,"ev":"state","th":0,"state":"running"}
{"t":20,"ev":"state","th":1,"state":"running"}
{"t":100,"ev":"lock","th":0,"addr":"0x7f00","act":"acquire","mode":"exclusive"}
{"t":300,"ev":"lock","th":0,"addr":"0x7f00","act":"release","mode":"exclusive"}
{"t":400,"ev":"lock","th":1,"addr":"0x7f00","act":"acquire","mode":"exclusive"}
{"t":500,"ev":"lock","th":1,"addr":"0x7f00","act":"release","mode":"exclusive"}
{"t":600,"ev":"lock","th":1,"addr":"0x7f00","act":"wait","mode":"exclusive"}
{"t":700,"ev":"lock","th":1,"addr":"0x7f00","act":"acquire","mode":"exclusive"}
{"t":1000,"ev":"lock","th":1,"addr":"0x7f00","act":"release","mode":"exclusive"}
{"t":3900,"ev":"state","th":0,"state":"finished"}
{"t":3950,"ev":"state","th":1,"state":"finished"}
{"t":4000,"ev":"end","steps":11,"outcome":"pass"}
)";

TEST_CASE("view: a native trace's header: platform, clock and dropped events; a simulator's is sim") {
  const Trace sim = parse_trace(kSim, "sim");
  const Trace native = parse_trace(kNative, "native");
  CHECK(!sim.native);
  CHECK(native.native);
  CHECK(native.clock == "tsc");
  CHECK(native.threads.at(0).intervals.front().begin == 0);  // ready until it starts, as the format says
  CHECK(native.threads.at(0).finished_at == 3900);
  // Events that record what threads did: A's 19 lines between the threads and `end`, B's 11.
  CHECK(sim.events == 19);
  CHECK(native.events == 11);
  // Outermost protocol steps only: futex_wait's inner step is not an operation of its own.
  CHECK(sim.threads.at(0).operations == std::map<std::string, std::uint64_t>{{"futex_wake", 1}});
  CHECK(sim.threads.at(1).operations == std::map<std::string, std::uint64_t>{{"futex_wait", 1}});
}

TEST_CASE("view: the figures of two traces side by side, B's difference from A in percent") {
  const Trace a = parse_trace(kSim, "sim");
  const Trace b = parse_trace(kNative, "native");
  const std::vector<MetricRow> rows = metric_differences(a, b);

  const MetricRow& duration = row(rows, "duration");
  CHECK(duration.value == Pair<std::optional<double>>{1000.0, 4000.0});
  CHECK(duration.difference_pct == Approx(300));
  // Two acquisitions in 1000 ns, three in 4000 ns.
  CHECK(row(rows, "lock acquisitions").value == Pair<std::optional<double>>{2.0, 3.0});
  const MetricRow& rate = row(rows, "lock acquisitions per second");
  CHECK(*rate.value[0] == Approx(2e6));
  CHECK(*rate.value[1] == Approx(0.75e6));
  CHECK(*rate.difference_pct == Approx(-62.5));
  // Waits: A 0 (t0, uncontended) and 50 (t1, 50 -> 100); B 0, 0 and 100. Holds: A 100 and 50; B 200, 100, 300.
  CHECK(*row(rows, "lock wait mean").value[0] == Approx(25));
  CHECK(*row(rows, "lock wait mean").value[1] == Approx(100.0 / 3));
  CHECK(*row(rows, "lock hold mean").value[0] == Approx(75));
  CHECK(*row(rows, "lock hold mean").value[1] == Approx(200));
  CHECK(*row(rows, "lock hold p99").value[1] == Approx(300));
  CHECK(*row(rows, "lock hold mean").difference_pct == Approx(166.666).epsilon(1e-3));
  // Futex queues and wakeups: only A records them; B's side is absent, not 0, and has no difference.
  const MetricRow& queued = row(rows, "futex waits queued");
  CHECK(queued.value[0] == 1.0);
  CHECK(!queued.value[1]);
  CHECK(!queued.difference_pct);
  CHECK(row(rows, "futex waiters dequeued").value[0] == 1.0);
  CHECK(row(rows, "wakeups").value[0] == 1.0);
  CHECK(!row(rows, "wakeups").value[1]);
  CHECK(row(rows, "wake latency mean").value[0] == 40.0);  // unpark at 300, running at 340
  // Per thread: lock acquisitions on both sides, protocol steps only where the trace has them.
  CHECK(row(rows, "t1: lock acquisitions").value == Pair<std::optional<double>>{1.0, 2.0});
  CHECK(*row(rows, "t1: lock acquisitions").difference_pct == Approx(100));
  CHECK(row(rows, "t1: futex_wait").value == Pair<std::optional<double>>{1.0, std::nullopt});
  CHECK(row(rows, "t0: futex_wake").value == Pair<std::optional<double>>{1.0, std::nullopt});
  for (const MetricRow& r : rows) CHECK(r.name != "t0: futex_wait");  // a thread's own steps only
  CHECK(*row(rows, "t1: futex_wait per second").value[0] == Approx(1e6));
}

TEST_CASE("view: a sampled native trace's counts are scaled by its sample, its times are not") {
  std::string sampled = kNative;
  const std::string from = "\"dropped_events\":0,";
  sampled.replace(sampled.find(from), from.size(), from + "\"sample\":4,");
  const Trace b = parse_trace(sampled, "native, 1 in 4");
  CHECK(b.sample == 4);
  const std::vector<MetricRow> rows = metric_differences(parse_trace(kSim, "sim"), b);
  CHECK(row(rows, "lock acquisitions").value[1] == 12.0);  // 3 recorded, each one of 4
  CHECK(row(rows, "t1: lock acquisitions").value[1] == 8.0);
  CHECK(*row(rows, "lock hold mean").value[1] == Approx(200));
}

TEST_CASE("view: percent differences need a nonzero A") {
  CHECK(*percent_difference(200, 150) == Approx(-25));
  CHECK(*percent_difference(-4, -2) == Approx(-50));
  CHECK(!percent_difference(0, 5));
}

TEST_CASE("view: traces of very different durations each get their own time scale") {
  const Trace a = parse_trace(kSim, "sim");
  const Trace b = parse_trace(kNative, "native");
  CHECK(compare_scale(a, b) == 1);  // 4x apart: still one axis
  const std::string longer = kNative.substr(0, kNative.rfind("{\"t\":4000")) +
                             R"({"t":4001,"ev":"end","steps":11,"outcome":"pass"})"
                             "\n";
  const Trace c = parse_trace(longer, "native");
  CHECK(compare_scale(a, c) == Approx(4.001));
  const ComparePageOptions o = compare_options(a, c, TimeWindow{0, 1000}, "A", "B");
  REQUIRE(o.window_b);
  CHECK(o.window_b->t1 == Approx(4001));
  CHECK(!compare_options(a, b, TimeWindow{0, 1000}, "A", "B").window_b);
}

// A scenario file in the scratch directory.
std::filesystem::path scenario(const std::string& stem, const std::string& yaml) {
  const auto path = testing::scratch_dir() / (stem + ".yaml");
  testing::spit(path, yaml);
  return path;
}

// `lockstep COMMAND FILE --trace OUT ARGS`; the trace's path, or empty when none was written.
std::filesystem::path record(const std::string& command, const std::filesystem::path& file, const std::string& args) {
  const auto out = testing::scratch_dir() / (file.stem().string() + ".trace.jsonl");
  const std::string cmd = std::string("'") + LOCKSTEP_BIN + "' " + command + " -q " + quoted(file) + " --out-dir " +
                          quoted(testing::scratch_dir()) + " --trace " + quoted(out) + " " + args + " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  (void)rc;
  return std::filesystem::exists(out) ? out : std::filesystem::path();
}

TEST_CASE("view: a native trace from `lockstep native --trace` opens, and compares with a simulated one", "[native]") {
  const auto native_file =
      record("native",
             scenario("native-pp",
                      "name: ping-pong\nplatform: native\ndesign: {futex: baseline}\n"
                      "workload: {kind: futex-pingpong, words: 16, runtime_us: 20000}\nexpect: pass\n"),
             "--trace-steps");
  const auto sim_file =
      record("run",
             scenario("sim-pp",
                      "name: ping-pong\nmachine: {preset: nehalem-2s}\ndesign: {futex: baseline}\n"
                      "workload: {kind: futex-pingpong, threads: 2, words: 16, runtime_us: 1000, rounds: 10}\n"
                      "strategy: {kind: timed, seed: 1}\nexpect: pass\n"),
             "");
  REQUIRE(!native_file.empty());
  REQUIRE(!sim_file.empty());
  const Trace native = load_trace(native_file);
  CHECK(native.native);
  REQUIRE(native.threads.size() == 2);  // one pair on this host's first two CPUs (or one CPU twice)
  for (const Thread& th : native.threads) {
    CHECK(!th.intervals.empty());
    CHECK(th.finished_at);
    CHECK(th.operations.count("futex_wait") == 1);  // --trace-steps: each thread's futex calls
  }
  CHECK(!native.locks.empty());
  CHECK(!native.wakes.empty());                                     // unpark -> the target running again
  for (const Cpu& cpu : native.cpus) CHECK(cpu.intervals.empty());  // the OS's scheduling is not traced

  const Trace sim = load_trace(sim_file);
  const Comparison c = compare_traces(sim, native);
  CHECK(row(c.metrics, "ping0: futex_wait").value[0]);
  CHECK(row(c.metrics, "ping0: futex_wait").value[1]);
  CHECK(row(c.metrics, "ping0: futex_wake").difference_pct);
  CHECK(row(c.metrics, "wake latency mean").value[1]);  // natively every round trip sleeps and wakes

  const auto png = testing::scratch_dir() / "native-compare.png";
  const auto svg = testing::scratch_dir() / "native-compare.svg";
  REQUIRE(run_view("--screenshot " + quoted(png) + " --compare " + quoted(sim_file) + " " + quoted(native_file)) == 0);
  CHECK(std::filesystem::file_size(png) > 10000);
  REQUIRE(run_view("--screenshot " + quoted(svg) + " --compare " + quoted(sim_file) + " " + quoted(native_file)) == 0);
  const std::string text = testing::slurp(svg);
  CHECK(text.find("(native)") != std::string::npos);
  CHECK(text.find("(simulated)") != std::string::npos);
  CHECK(text.find("B vs A") != std::string::npos);
  CHECK(text.find("own time scale") != std::string::npos);
  // --compare takes two traces.
  CHECK(run_view("--screenshot " + quoted(png) + " --compare " + quoted(native_file)) == 2);
  CHECK(testing::view_errors().find("--compare takes two") != std::string::npos);
  CHECK(run_view("--screenshot " + quoted(png) + " --view stats --compare " + quoted(sim_file) + " " +
                 quoted(native_file)) == 2);
}

}  // namespace
}  // namespace lockstep::view
