// Lock and futex events in traces (docs/traces.md, "Lock events" and "Futex events"): what the
// instrumented locks and the futex table's bucket queues write, held against the invariants
// a viewer drawing holds, hand-offs and queues relies on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/traced_run.hpp"

using namespace lockstep;
using lockstep::testing::hex_address;
using lockstep::testing::library_scenario;
using lockstep::testing::traced_run;
using lockstep::testing::TracedRun;
using nlohmann::json;

namespace {

struct LockTally {
  std::map<std::uint64_t, int> acquires;  // per lock address
  int waits = 0;
  int shared_acquires = 0;
};

// Replays the lock events in file order. Each thread's events for one lock run
// wait? acquire release, a release in the mode of its acquire; an exclusive hold has the lock
// to itself (unless `per_range`: range locks hold disjoint ranges exclusively together); and
// a lock is acquired no earlier in virtual time than its last release. With `balanced`,
// nothing is held or awaited at the end.
LockTally replay_locks(const TracedRun& run, bool per_range = false, bool balanced = true) {
  enum class Phase { idle, waiting, holding };
  struct Progress {
    Phase phase = Phase::idle;
    bool shared = false;
  };
  std::map<std::pair<int, std::uint64_t>, Progress> progress;
  std::map<std::uint64_t, int> exclusive_holders;
  std::map<std::uint64_t, int> shared_holders;
  std::map<std::uint64_t, std::uint64_t> released_at;
  LockTally tally;
  for (const json& e : run.of("lock")) {
    INFO(e.dump());
    const int th = e.at("th");
    const std::uint64_t addr = hex_address(e.at("addr"));
    const std::string act = e.at("act");
    const bool shared = e.at("mode") == "shared";
    REQUIRE((shared || e.at("mode") == "exclusive"));
    Progress& p = progress[{th, addr}];
    if (act == "wait") {
      REQUIRE(p.phase == Phase::idle);
      p.phase = Phase::waiting;
      ++tally.waits;
    } else if (act == "acquire") {
      REQUIRE(p.phase != Phase::holding);
      if (!per_range) {
        REQUIRE(exclusive_holders[addr] == 0);
        if (!shared) REQUIRE(shared_holders[addr] == 0);
      }
      CHECK(e.at("t").get<std::uint64_t>() >= released_at[addr]);
      (shared ? shared_holders : exclusive_holders)[addr]++;
      p = Progress{Phase::holding, shared};
      ++tally.acquires[addr];
      if (shared) ++tally.shared_acquires;
    } else {
      REQUIRE(act == "release");
      REQUIRE(p.phase == Phase::holding);
      REQUIRE(p.shared == shared);
      (shared ? shared_holders : exclusive_holders)[addr]--;
      released_at[addr] = e.at("t");
      p.phase = Phase::idle;
    }
  }
  if (balanced)
    for (const auto& [key, p] : progress) {
      INFO("thread " << key.first << " lock " << key.second);
      CHECK(p.phase == Phase::idle);
    }
  return tally;
}

std::uint64_t label_address(const TracedRun& run, const std::string& name) {
  for (const json& l : run.of("label"))
    if (l.at("name") == name) return hex_address(l.at("addr"));
  FAIL("no label " << name);
  return 0;
}

}  // namespace

TEST_CASE("spinlocks write balanced, ordered and exclusive lock events", "[trace]") {
  const std::size_t row = GENERATE(0U, 1U, 2U);  // ticket, ttas, mcs
  INFO("row " << row);
  const TracedRun run = traced_run(library_scenario("basics/counter-under-spinlock.yaml"), row);
  REQUIRE(run.report.result == "pass");
  const LockTally tally = replay_locks(run);
  // lock-counter: 3 threads increment 20 times each, each time under the one lock.
  CHECK(tally.acquires.size() == 1);
  CHECK(tally.acquires.at(label_address(run, "lock")) == 3 * 20);
  CHECK(tally.waits > 0);  // the random schedule contends
}

TEST_CASE("a timed ticket lock's hand-offs follow its releases in virtual time", "[trace]") {
  const TracedRun run = traced_run(library_scenario("basics/counter-timed.yaml"));
  const LockTally tally = replay_locks(run);
  CHECK(tally.acquires.at(label_address(run, "lock")) == 8 * 200);
  CHECK(tally.waits > 0);
}

TEST_CASE("futex mutexes and sleeping locks write lock events, readers sharing", "[trace]") {
  SECTION("Drepper's mutex3 over the futex table, and the buckets' spinlocks") {
    const TracedRun run = traced_run(library_scenario("usync/mutex3-counter.yaml"));
    const LockTally tally = replay_locks(run);
    CHECK(tally.acquires.size() > 1);  // the mutex and at least one bucket lock
    CHECK(tally.waits > 0);
  }
  SECTION("the sleeping reader-writer lock, taken shared by reads") {
    const TracedRun run = traced_run(library_scenario("fileio/offset-vnode-rwlock-reads-unique.yaml"));
    const LockTally tally = replay_locks(run);
    CHECK(tally.shared_acquires > 0);
    CHECK(tally.acquires.count(label_address(run, "inode.rwlock") + 8) == 1);  // named by its readers word
  }
  SECTION("the sleeping mutex (f_pos_lock)") {
    const TracedRun run = traced_run(library_scenario("fileio/offset-f-pos-lock-reads-unique.yaml"));
    const LockTally tally = replay_locks(run);
    CHECK(tally.acquires.size() >= 2);  // the mutex and its interlock
  }
  SECTION("the range lock, writers of disjoint ranges together") {
    const TracedRun run = traced_run(library_scenario("fileio/data-range-locks-disjoint-writers.yaml"));
    const LockTally tally = replay_locks(run, true);
    CHECK(tally.acquires.count(label_address(run, "inode.rangelock") + 8) == 1);  // named by its list
  }
}

namespace {

struct Queued {
  int waiter;
  std::uint64_t key;
  friend auto operator<=>(const Queued&, const Queued&) = default;
};

struct QueueTally {
  int enqueues = 0;
  int dequeues = 0;
  int requeues = 0;  // a dequeue and an enqueue of one waiter by one thread, with another key
  std::map<std::uint64_t, std::multiset<Queued>> left;  // per bucket, what is queued at the end
};

// Replays the futex events in file order: a dequeue takes off a waiter that its bucket holds
// with that key (so no queue goes negative), a waiter is on one queue at most, a waiter
// queues itself except when moved (a dequeue by the same thread just before), and the key is
// the futex word the waiter last loaded (futex_wait checks it under the bucket lock).
QueueTally replay_queues(const TracedRun& run) {
  QueueTally tally;
  std::map<int, std::uint64_t> last_load;  // per thread, the address of its last atomic load
  std::set<int> queued;
  const json* previous_dequeue = nullptr;
  for (const json& e : run.events) {
    if (e.at("ev") == "op" && e.at("op") == "load") last_load[e.at("th")] = hex_address(e.at("addr"));
    if (e.at("ev") != "futex") continue;
    INFO(e.dump());
    const int th = e.at("th");
    const Queued q{e.at("waiter"), hex_address(e.at("key"))};
    auto& bucket = tally.left[e.at("bucket").get<std::uint64_t>()];
    if (e.at("act") == "enqueue") {
      REQUIRE(queued.insert(q.waiter).second);
      const bool moved =
          previous_dequeue != nullptr && previous_dequeue->at("th") == th && previous_dequeue->at("waiter") == q.waiter;
      if (moved) {
        if (hex_address(previous_dequeue->at("key")) != q.key) ++tally.requeues;
      } else {
        CHECK(q.waiter == th);
        CHECK(last_load[th] == q.key);
      }
      bucket.insert(q);
      ++tally.enqueues;
      previous_dequeue = nullptr;
    } else {
      REQUIRE(e.at("act") == "dequeue");
      const auto it = bucket.find(q);
      REQUIRE(it != bucket.end());
      bucket.erase(it);
      queued.erase(q.waiter);
      ++tally.dequeues;
      previous_dequeue = &e;
    }
  }
  return tally;
}

bool all_empty(const QueueTally& t) {
  return std::all_of(t.left.begin(), t.left.end(), [](const auto& b) { return b.second.empty(); });
}

}  // namespace

TEST_CASE("futex bucket queues never go negative and end empty", "[trace]") {
  SECTION("perf bench futex wake: 15 sleepers, woken one or all at a time") {
    const std::size_t row = GENERATE(0U, 1U);
    const TracedRun run = traced_run(library_scenario("futex/wake-batches.yaml"), row);
    const QueueTally tally = replay_queues(run);
    CHECK(tally.enqueues == 15 * 3);  // 15 sleepers, 3 rounds
    CHECK(tally.dequeues == tally.enqueues);
    CHECK(all_empty(tally));
  }
  SECTION("perf bench futex requeue: sleepers moved to a second futex, then woken") {
    const TracedRun run = traced_run(library_scenario("futex/requeue-batches.yaml"));
    const QueueTally tally = replay_queues(run);
    CHECK(tally.requeues > 0);
    CHECK(tally.dequeues == tally.enqueues);
    CHECK(all_empty(tally));
  }
}

TEST_CASE("a lost wakeup leaves its waiter on the bucket queue in the trace", "[trace]") {
  const TracedRun run = traced_run(library_scenario("futex/lost-wakeup-missing-barrier.yaml"));
  REQUIRE(run.report.property == "lost_wakeup");
  const QueueTally tally = replay_queues(run);
  CHECK(tally.enqueues == 1);
  CHECK(tally.dequeues == 0);
  CHECK_FALSE(all_empty(tally));
  replay_locks(run);  // the bucket lock was released before the waiter parked
}
