// Statistics over a selection of a hand-written trace whose answers are worked out by hand.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "gui/model/statistics.hpp"
#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

// Two threads. Locks: L (0x100) taken by a at 10 without waiting, waited for by b from 12,
// released by a at 30, acquired by b at 35, released at 40; M (0x200) waited for by a from 60,
// acquired at 70 and never released. Futex bucket 3: a queued at 20, b at 30, a dequeued at
// 60, b at 70. Thread a runs, parks at 60, runs again at 90; b runs until it finishes at 95.
const std::string kTrace =
    R"({"format":"lockstep-trace","version":1,"scenario":"s.yaml","name":"stats","params":{},"strategy":"timed","seed":1,"execution":0,"memory_model":"sc","cpus":2,"node_of_cpu":[0,1]}
{"t":0,"ev":"label","addr":"0x100","size":8,"name":"L"}
{"t":0,"ev":"label","addr":"0x200","size":8,"name":"M"}
{"t":0,"ev":"thread","th":0,"name":"a","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"b","cpu":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":0,"ev":"op","th":0,"cpu":0,"op":"load","addr":"0x0","size":8,"val":0,"lat":4,"src":"l1"}
{"t":5,"ev":"op","th":1,"cpu":1,"op":"store","addr":"0x0","size":8,"val":1,"lat":40,"src":"remote_cache","peer":0}
{"t":10,"ev":"lock","th":0,"addr":"0x100","act":"acquire"}
{"t":12,"ev":"lock","th":1,"addr":"0x100","act":"wait"}
{"t":20,"ev":"op","th":0,"cpu":0,"op":"rmw","rmw":"cas","addr":"0x8","size":8,"old":3,"val":3,"ok":false,"lat":12,"src":"l2"}
{"t":20,"ev":"futex","th":0,"act":"enqueue","bucket":3,"key":"0x300","waiter":0}
{"t":30,"ev":"lock","th":0,"addr":"0x100","act":"release"}
{"t":30,"ev":"futex","th":1,"act":"enqueue","bucket":3,"key":"0x300","waiter":1}
{"t":35,"ev":"lock","th":1,"addr":"0x100","act":"acquire","mode":"shared"}
{"t":40,"ev":"lock","th":1,"addr":"0x100","act":"release"}
{"t":45,"ev":"op","th":1,"cpu":1,"op":"load","addr":"0x0","size":8,"val":1,"lat":100,"src":"dram_local"}
{"t":50,"ev":"op","th":0,"cpu":0,"op":"fence","lat":3}
{"t":55,"ev":"op","th":0,"cpu":0,"op":"pause","lat":1}
{"t":60,"ev":"lock","th":0,"addr":"0x200","act":"wait"}
{"t":60,"ev":"state","th":0,"state":"parked"}
{"t":60,"ev":"futex","th":1,"act":"dequeue","bucket":3,"key":"0x300","waiter":0}
{"t":70,"ev":"lock","th":0,"addr":"0x200","act":"acquire"}
{"t":70,"ev":"futex","th":1,"act":"dequeue","bucket":3,"key":"0x300","waiter":1}
{"t":80,"ev":"op","th":1,"cpu":1,"op":"unpark","target":0,"woke":false,"lat":0}
{"t":90,"ev":"state","th":0,"state":"running"}
{"t":95,"ev":"state","th":1,"state":"finished"}
{"t":100,"ev":"end","steps":7,"outcome":"pass"}
)";

const Trace& trace() {
  static const Trace t = parse_trace(kTrace);
  return t;
}

TEST_CASE("view: statistics of a whole trace count operations, latencies and sources") {
  const Statistics s = compute_statistics(trace(), whole_trace(trace()));
  CHECK(s.ops == 7);
  CHECK(s.op_counts == std::map<std::string, std::size_t>{
                           {"load", 2}, {"store", 1}, {"rmw", 1}, {"fence", 1}, {"pause", 1}, {"unpark", 1}});
  CHECK(s.rmw_counts == std::map<std::string, std::size_t>{{"cas", 1}});
  CHECK(s.failed_cas == 1);
  CHECK(s.latencies_ns == std::vector<std::uint64_t>{4, 40, 12, 100});  // fences and pauses are not accesses
  CHECK(s.latency.min_ns == 4);
  CHECK(s.latency.max_ns == 100);
  CHECK(s.latency.mean_ns == Approx(39.0));
  CHECK(s.latency.p50_ns == 12);
  // 4..100 ns: 2 ns bins from 4 to 100.
  REQUIRE(s.latency_histogram.size() == 49);
  CHECK(s.latency_histogram[0] == HistogramBin{4, 6, 1});
  CHECK(s.latency_histogram[4] == HistogramBin{12, 14, 1});
  CHECK(s.latency_histogram[18] == HistogramBin{40, 42, 1});
  CHECK(s.latency_histogram[48] == HistogramBin{100, 102, 1});
  CHECK(s.sources == std::map<std::string, std::size_t>{{"l1", 1}, {"l2", 1}, {"remote_cache", 1}, {"dram_local", 1}});
}

TEST_CASE("view: lock wait and hold times per lock, per thread and in all") {
  const Statistics s = compute_statistics(trace(), whole_trace(trace()));
  REQUIRE(s.locks.size() == 2);
  const LockTimes& l = s.locks.at(0x100);
  CHECK(l.wait.count == 2);  // a's uncontended acquire (0 ns) and b's wait from 12 to 35
  CHECK(l.wait.min_ns == 0);
  CHECK(l.wait.max_ns == 23);
  CHECK(l.hold.count == 2);  // a from 10 to 30, b from 35 to 40
  CHECK(l.hold.total_ns == 25);
  CHECK(l.hold.max_ns == 20);
  CHECK(l.shared_holds == 1);
  const LockTimes& m = s.locks.at(0x200);
  CHECK(m.wait.count == 1);
  CHECK(m.wait.total_ns == 10);
  CHECK(m.hold.count == 0);
  CHECK(m.open_holds == 1);  // acquired at 70, never released
  CHECK(s.lock_threads.at(0).wait.total_ns == 10);
  CHECK(s.lock_threads.at(0).hold.total_ns == 20);
  CHECK(s.lock_threads.at(1).wait.total_ns == 23);
  CHECK(s.lock_threads.at(1).hold.total_ns == 5);
  CHECK(s.all_locks.wait.count == 3);
  CHECK(s.all_locks.wait.mean_ns == Approx(11.0));
  CHECK(s.all_locks.wait.p50_ns == 10);
  CHECK(s.all_locks.hold.total_ns == 25);
  CHECK(s.all_locks.open_holds == 1);
}

TEST_CASE("view: statistics of a time range count what begins inside it") {
  const Statistics s = compute_statistics(trace(), Selection{11, 36, {}});
  CHECK(s.ops == 1);  // the cas at 20
  CHECK(s.latencies_ns == std::vector<std::uint64_t>{12});
  // b's wait began at 12 (23 ns) and its hold at 35 (5 ns); a's hold began at 10, outside.
  CHECK(s.all_locks.wait.count == 1);
  CHECK(s.all_locks.wait.total_ns == 23);
  CHECK(s.all_locks.hold.count == 1);
  CHECK(s.all_locks.hold.total_ns == 5);
  CHECK(s.locks.count(0x200) == 0);

  const Statistics later = compute_statistics(trace(), Selection{5, 50, {}});
  CHECK(later.op_counts == std::map<std::string, std::size_t>{{"store", 1}, {"rmw", 1}, {"load", 1}});
  CHECK(later.latencies_ns == std::vector<std::uint64_t>{40, 12, 100});
}

TEST_CASE("view: statistics of some threads leave the others out") {
  const Statistics s = compute_statistics(trace(), Selection{0, 101, {0}});
  CHECK(s.ops == 4);  // a: load, cas, fence, pause
  CHECK(s.sources == std::map<std::string, std::size_t>{{"l1", 1}, {"l2", 1}});
  CHECK(s.all_locks.wait.total_ns == 10);
  CHECK(s.all_locks.hold.total_ns == 20);
  CHECK(s.lock_threads.count(1) == 0);
  CHECK(s.thread_times.size() == 1);
  CHECK(s.thread_times.count(0) == 1);
}

TEST_CASE("view: futex bucket queue lengths over the whole trace and a range") {
  const Statistics whole = compute_statistics(trace(), whole_trace(trace()));
  REQUIRE(whole.futex_queues.size() == 1);
  const FutexQueue& q = whole.futex_queues.at(3);
  CHECK(q.enqueues == 2);
  CHECK(q.dequeues == 2);
  CHECK(q.max_length == 2);
  // 1 waiter for 10 ns, 2 for 30, 1 for 10, over the trace's 100 ns.
  CHECK(q.mean_length == Approx(0.8));

  const FutexQueue& r = compute_statistics(trace(), Selection{40, 65, {}}).futex_queues.at(3);
  CHECK(r.enqueues == 0);
  CHECK(r.dequeues == 1);
  CHECK(r.max_length == 2);  // two were queued when the range began
  CHECK(r.mean_length == Approx((2.0 * 20 + 1.0 * 5) / 25));
  CHECK(compute_statistics(trace(), Selection{80, 101, {}}).futex_queues.empty());  // empty all along
}

TEST_CASE("view: time per thread and state is clipped to the range") {
  const Statistics whole = compute_statistics(trace(), whole_trace(trace()));
  CHECK(whole.thread_times.at(0).in(ThreadState::running) == 70);
  CHECK(whole.thread_times.at(0).in(ThreadState::parked) == 30);
  CHECK(whole.thread_times.at(1).in(ThreadState::running) == 95);
  const Statistics part = compute_statistics(trace(), Selection{50, 95, {}});
  CHECK(part.thread_times.at(0).in(ThreadState::running) == 15);
  CHECK(part.thread_times.at(0).in(ThreadState::parked) == 30);
  CHECK(part.thread_times.at(1).in(ThreadState::running) == 45);
}

}  // namespace
}  // namespace lockstep::view

namespace lockstep::view {

// The lock profile (docs/os.md) of the hand-written trace: L's two holds (20 and 5) and b's
// wait of 23; M is acquired and never released, so it has no completed hold to count. Its
// events carry no site.
TEST_CASE("view: the lock profile of a hand-written trace") {
  const Statistics s = compute_statistics(trace(), whole_trace(trace()));
  REQUIRE(s.lock_profile.entries.size() == 1);
  const profile::LockProfileEntry& l = s.lock_profile.entries[0];
  CHECK(l.name == "L");
  CHECK(l.file.empty());
  CHECK(l.acquisitions == 2);
  CHECK(l.contended == 1);
  CHECK(l.hold_total_ns == 25);
  CHECK(l.hold_max_ns == 20);
  CHECK(l.wait_total_ns == 23);
  // From 32 on: b's acquire at 35 and release at 40 only; its wait began before the selection.
  const Statistics late = compute_statistics(trace(), Selection{32, 1000, {}});
  REQUIRE(late.lock_profile.entries.size() == 1);
  CHECK(late.lock_profile.entries[0].acquisitions == 1);
  CHECK(late.lock_profile.entries[0].contended == 0);
  CHECK(late.lock_profile.entries[0].hold_total_ns == 5);
}

// The viewer's table for a whole trace is the one `lockstep run --lock-profile` prints for the
// same run: the same recorder, fed from the trace's lock events and their sites.
TEST_CASE("view: the lock profile of a recorded run is the command line's") {
  const auto dir = testing::scratch_dir();
  testing::spit(dir / "lp.yaml", R"(name: lock profile, three threads on one ticket lock
machine: {preset: nehalem-2s}
design: {spinlock: ticket}
workload: {kind: lock-counter, threads: 3, iterations: 20}
strategy: {kind: timed, seed: 1}
expect: pass
)");
  const std::string cmd = std::string("cd '") + LOCKSTEP_SOURCE_DIR + "' && '" + LOCKSTEP_BIN + "' run -q '" +
                          (dir / "lp.yaml").string() + "' --out-dir '" + dir.string() + "' --trace '" +
                          (dir / "lp.trace.jsonl").string() + "' --lock-profile '" + (dir / "lp.json").string() +
                          "' >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const Trace t = load_trace(dir / "lp.trace.jsonl");
  const Statistics s = compute_statistics(t, whole_trace(t));
  const nlohmann::json cli = nlohmann::json::parse(testing::slurp(dir / "lp.json"));
  const nlohmann::json& locks = cli.at("scenarios").at(0).at("rows").at(0).at("locks");
  REQUIRE(locks.size() == s.lock_profile.entries.size());
  REQUIRE(!locks.empty());
  for (std::size_t i = 0; i < locks.size(); ++i) {
    const profile::LockProfileEntry& e = s.lock_profile.entries[i];
    INFO(e.name << " at " << e.file << ":" << e.line);
    CHECK(e.file == locks[i].at("file").get<std::string>());
    CHECK(e.line == locks[i].at("line").get<std::uint32_t>());
    CHECK(e.name == locks[i].at("lock").get<std::string>());
    CHECK(e.acquisitions == locks[i].at("acquisitions").get<std::uint64_t>());
    CHECK(e.contended == locks[i].at("contended").get<std::uint64_t>());
    CHECK(e.hold_total_ns == locks[i].at("hold_total_ns").get<std::uint64_t>());
    CHECK(e.hold_max_ns == locks[i].at("hold_max_ns").get<std::uint64_t>());
    CHECK(e.wait_total_ns == locks[i].at("wait_total_ns").get<std::uint64_t>());
    CHECK(e.wait_max_ns == locks[i].at("wait_max_ns").get<std::uint64_t>());
  }
  CHECK(s.lock_profile.entries[0].acquisitions == 60);  // 3 threads x 20 increments
  CHECK(s.lock_profile.entries[0].file == "core/workloads/lock_counter.hpp");
}

}  // namespace lockstep::view
