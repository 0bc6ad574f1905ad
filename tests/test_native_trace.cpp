// Native traces (docs/traces.md, "Native traces"): what NativePlatform's notes
// record into per-thread buffers, merged by time and written in the trace format, read back
// by the trace library's reader.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver/native_runner.hpp"
#include "driver/native_trace.hpp"
#include "driver/trace_output.hpp"
#include "io/files.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"
#include "trace/reader.hpp"

namespace lockstep {
namespace {

using native::NativePlatform;

const std::filesystem::path& scratch() {
  static const testing::ScratchDir dir("lockstep_native_trace_tests");
  return dir.path();
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a reader sees of a trace: its platform, per-thread events and per-kind counts, and
// whether the times never go backwards.
struct ReadBack {
  trace::TracePlatform platform = trace::TracePlatform::sim;
  nlohmann::ordered_json header;
  std::map<int, std::string> thread_names;
  std::map<int, std::uint64_t> thread_dropped;
  std::map<int, std::size_t> events_of_thread;  // events with a `th`, thread events excluded
  std::map<std::string, std::size_t> kinds;
  std::vector<std::pair<int, int>> futex_enqueues;  // (th, waiter)
  std::vector<std::pair<int, int>> futex_dequeues;
  bool sorted = true;
  bool ended = false;
};

ReadBack read_back(const std::string& text) {
  trace::Reader reader(text, "native trace");
  ReadBack r;
  r.platform = reader.platform();
  r.header = reader.header();
  std::uint64_t last = 0;
  while (reader.next()) {
    const trace::Event& e = reader.event();
    r.kinds[std::string(e.kind_name())]++;
    if (e.time() < last) r.sorted = false;
    last = std::max(last, e.time());
    switch (e.kind()) {
      case trace::EventKind::thread: {
        const int th = e.index(trace::field::th, false);
        r.thread_names[th] = std::string(e.text(trace::field::name));
        r.thread_dropped[th] = e.opt_u64(trace::field::dropped).value_or(0);
        break;
      }
      case trace::EventKind::futex: {
        const std::pair<int, int> who{e.index(trace::field::th, false), e.index(trace::field::waiter, false)};
        (e.text(trace::field::act) == "enqueue" ? r.futex_enqueues : r.futex_dequeues).push_back(who);
        r.events_of_thread[who.first]++;
        break;
      }
      case trace::EventKind::label:
      case trace::EventKind::violation:
      case trace::EventKind::end:
        break;
      default:
        r.events_of_thread[e.index(trace::field::th, false)]++;
    }
  }
  r.ended = reader.ended();
  return r;
}

scenario::ScenarioFile scenario_file(const std::string& stem, const std::string& yaml) {
  const auto path = scratch() / (stem + ".yaml");
  std::ofstream(path) << yaml;
  return scenario::load_scenario_file(path.string());
}

TEST_CASE("a native ping-pong's trace reads back: platform native, times in order, every thread, futex waiters named",
          "[native]") {
  const scenario::ScenarioFile file =
      scenario_file("pingpong",
                    "name: traced ping-pong\nplatform: native\ndesign: {futex: baseline}\n"
                    "workload: {kind: futex-pingpong, words: 16, runtime_us: 20000}\nexpect: pass\n");
  driver::NativeOptions options;
  options.trace_path = (scratch() / "pingpong.trace.jsonl").string();
  const report::ScenarioReport report = driver::run_native_file(file, options);
  REQUIRE(report.rows.size() == 1);
  const report::RowReport& row = report.rows.front();
  REQUIRE(row.trace_path == options.trace_path);
  const std::string text = slurp(row.trace_path);
  CHECK(row.trace_sha256 == io::sha256_hex(text));

  const ReadBack r = read_back(text);
  CHECK(r.platform == trace::TracePlatform::native);
  CHECK(r.header.at("strategy") == "native");
  CHECK(r.header.at("dropped_events") == 0);
  CHECK(r.ended);
  CHECK(r.sorted);
  // Every thread the workload started is declared and did something (at least its start and end).
  REQUIRE(r.thread_names.size() >= 2);
  for (const auto& [th, name] : r.thread_names) {
    INFO(name);
    REQUIRE(r.events_of_thread.count(th) == 1);
    CHECK(r.events_of_thread.at(th) >= 2);
  }
  // Every round trip sleeps: ponger and pinger park, the other unparks them, and the table
  // queues and dequeues them. futex_wait queues the waiter itself, so an enqueue's waiter
  // is the thread writing it: the node-on-the-stack lookup must name the same thread.
  CHECK(r.kinds.at("lock") > 0);
  CHECK(r.kinds.at("op") > 0);
  REQUIRE(!r.futex_enqueues.empty());
  for (const auto& [th, waiter] : r.futex_enqueues) CHECK(th == waiter);
  std::size_t woken_by_other = 0;
  for (const auto& [th, waiter] : r.futex_dequeues) woken_by_other += th != waiter ? 1 : 0;
  CHECK(woken_by_other > 0);
}

TEST_CASE("a full trace buffer drops the rest of its thread's events and the trace counts them", "[native]") {
  constexpr std::size_t kCapacity = 8;
  constexpr int kNotes = 100;
  native::TraceSession session({.events_per_thread = kCapacity, .steps = false});
  native::NativeRunner runner;
  int lock_word = 0;
  for (int i = 0; i < 2; ++i)
    runner.spawn("t" + std::to_string(i), i, [&lock_word] {
      for (int k = 0; k < kNotes; ++k)
        NativePlatform::note_lock(&lock_word, k % 2 == 0 ? LockNote::acquire : LockNote::release, false, {});
    });
  runner.run();
  // The main thread is no runner thread: its notes are not recorded anywhere.
  NativePlatform::note_lock(&lock_word, LockNote::acquire, false, {});
  REQUIRE(session.threads().size() == 2);
  for (const auto& t : session.threads()) {
    CHECK(t->notes == kCapacity);
    CHECK(t->used == kCapacity + 2);  // and its start and end
    CHECK(t->dropped == kNotes - kCapacity);
  }

  report::RowReport row;
  row.result = "pass";
  scenario::Scenario s;
  s.path = "unit";
  s.name = "tiny buffers";
  trace::Writer writer(driver::native_trace_header(session, s));
  const driver::NativeTraceCounts counts = driver::write_native_trace(session, row, writer);
  CHECK(counts.dropped == 2 * (kNotes - kCapacity));
  CHECK(counts.events == 2 * (kCapacity + 2));
  const ReadBack r = read_back(writer.text());
  CHECK(r.header.at("dropped_events") == 2 * (kNotes - kCapacity));
  CHECK(r.header.at("events_per_thread") == kCapacity);
  CHECK(r.kinds.at("lock") == 2 * kCapacity);
  for (int th = 0; th < 2; ++th) {
    CHECK(r.thread_dropped.at(th) == kNotes - kCapacity);
    CHECK(r.events_of_thread.at(th) == kCapacity + 2);
  }
  CHECK(r.sorted);
}

TEST_CASE("with no trace session the notes record nothing and cost a load", "[native]") {
  CHECK(native::trace_mask() == 0);
  CHECK(native::TraceSession::active() == nullptr);
  {
    native::TraceSession session({});
    CHECK(native::trace_mask() == native::kTraceEvents);
    CHECK_THROWS_AS(native::TraceSession({}), std::logic_error);  // one at a time
  }
  CHECK(native::trace_mask() == 0);
  native::TraceSession steps({.events_per_thread = 0, .steps = true});
  CHECK(native::trace_mask() == (native::kTraceEvents | native::kTraceSteps));
}

TEST_CASE("only the outermost protocol steps are traced, and only with steps asked for", "[native]") {
  native::TraceSession session({.events_per_thread = 64, .steps = true});
  native::NativeRunner runner;
  runner.spawn("t0", 0, [] {
    ProtocolSteps<NativePlatform> op("futex_wait");
    op.next("lock the bucket");
    op.next("read the futex word");
  });
  runner.run();
  const native::ThreadTrace& t = *session.threads().at(0);
  REQUIRE(t.notes == 2);  // futex_wait begins and ends; its inner steps are not recorded
  CHECK(std::string_view(reinterpret_cast<const char*>(t.events[1].a), t.events[1].b) == "futex_wait");
  CHECK(t.step_depth == 0);
}

TEST_CASE("a sampled trace keeps whole lock holds, nested ones with their outer one, about one in K", "[native]") {
  constexpr int kHolds = 4000;
  constexpr std::uint32_t kSample = 4;
  native::TraceSession session({.events_per_thread = 1 << 16, .steps = false, .sample = kSample});
  native::NativeRunner runner;
  int outer = 0, inner = 0;
  runner.spawn("t0", 0, [&outer, &inner] {
    for (int k = 0; k < kHolds; ++k) {
      if (k % 2 == 0) NativePlatform::note_lock(&outer, LockNote::wait, false, {});
      NativePlatform::note_lock(&outer, LockNote::acquire, false, {});
      NativePlatform::note_lock(&inner, LockNote::acquire, false, {});  // a hold inside a hold: one unit
      NativePlatform::note_lock(&inner, LockNote::release, false, {});
      NativePlatform::note_lock(&outer, LockNote::release, false, {});
    }
  });
  runner.run();
  const native::ThreadTrace& t = *session.threads().at(0);
  // Each recorded unit is whole: [wait] acquire acquire release release, in that order.
  std::size_t units = 0;
  std::size_t i = 1;  // after the start
  while (i + 1 < t.used) {
    const auto act = [&](std::size_t j) { return static_cast<LockNote>(t.events[j].act); };
    const bool waited = act(i) == LockNote::wait;
    const std::size_t n = waited ? 5 : 4;
    REQUIRE(i + n < t.used);
    CHECK(t.events[i + n - 4].a == reinterpret_cast<std::uintptr_t>(&outer));
    CHECK(act(i + n - 4) == LockNote::acquire);
    CHECK(act(i + n - 3) == LockNote::acquire);
    CHECK(act(i + n - 2) == LockNote::release);
    CHECK(t.events[i + n - 1].a == reinterpret_cast<std::uintptr_t>(&outer));
    CHECK(act(i + n - 1) == LockNote::release);
    i += n;
    ++units;
  }
  // Binomial(4000, 1/4): mean 1000, standard deviation 27; 6 of them either side.
  CHECK(units > 840);
  CHECK(units < 1160);
  CHECK(t.dropped == 0);
  CHECK(session.sample() == kSample);
}

TEST_CASE("a sweep's rows get the trace file's name with -row<N> before its extension") {
  CHECK(driver::row_file("out/x.trace.jsonl", 0) == "out/x-row1.trace.jsonl");
  CHECK(driver::row_file("x.chrome.json", 6) == "x-row7.chrome.json");
  CHECK(driver::row_file("dir.d/trace", 1) == "dir.d/trace-row2");
  CHECK(driver::row_file("a.jsonl", 2) == "a-row3.jsonl");
}

TEST_CASE("a trace header without `platform` is a simulator's; an unknown one is refused") {
  const std::string body = "{\"t\":0,\"ev\":\"end\",\"steps\":0,\"outcome\":\"pass\"}\n";
  const std::string sim_text = "{\"format\":\"lockstep-trace\",\"version\":1}\n" + body;
  const std::string native_text = "{\"format\":\"lockstep-trace\",\"version\":1,\"platform\":\"native\"}\n" + body;
  const std::string bad_text = "{\"format\":\"lockstep-trace\",\"version\":1,\"platform\":\"gpu\"}\n" + body;
  trace::Reader sim(sim_text, "sim");
  CHECK(sim.platform() == trace::TracePlatform::sim);
  trace::Reader native(native_text, "native");
  CHECK(native.platform() == trace::TracePlatform::native);
  trace::Reader bad(bad_text, "bad");
  CHECK_THROWS_WITH(bad.platform(), Catch::Contains("bad, line 1") && Catch::Contains("'platform'"));
}

}  // namespace
}  // namespace lockstep
