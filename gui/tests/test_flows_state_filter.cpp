// The models behind the timeline's arrows, the state panel and the search, on hand-written
// traces whose answers are known (docs/traces.md: lock and futex events, src/peer/buf).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "gui/model/bands.hpp"
#include "gui/model/event_filter.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/step_state.hpp"
#include "gui/model/trace.hpp"

namespace lockstep::view {
namespace {

// Two threads on two sockets hand a lock back and forth; the lock's line moves with it.
const std::string kHandoff =
    R"({"format":"lockstep-trace","version":1,"scenario":"h.yaml","name":"handoff","strategy":"timed","seed":1,"execution":0,"memory_model":"sc","cpus":2,"node_of_cpu":[0,1]}
{"t":0,"ev":"label","addr":"0x40","size":8,"name":"lock"}
{"t":0,"ev":"thread","th":0,"name":"a","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"b","cpu":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":0,"ev":"op","th":0,"cpu":0,"op":"rmw","rmw":"exchange","addr":"0x40","size":8,"old":0,"val":1,"ok":true,"lat":100,"src":"dram_local"}
{"t":100,"ev":"lock","th":0,"addr":"0x40","act":"acquire","mode":"exclusive"}
{"t":5,"ev":"op","th":1,"cpu":1,"op":"rmw","rmw":"exchange","addr":"0x40","size":8,"old":1,"val":1,"ok":true,"lat":150,"src":"remote_cache","peer":0,"st":"M"}
{"t":155,"ev":"lock","th":1,"addr":"0x40","act":"wait","mode":"exclusive"}
{"t":200,"ev":"op","th":0,"cpu":0,"op":"store","addr":"0x40","size":8,"val":0,"lat":120,"src":"remote_cache","peer":1}
{"t":200,"ev":"lock","th":0,"addr":"0x40","act":"release","mode":"exclusive"}
{"t":330,"ev":"op","th":1,"cpu":1,"op":"rmw","rmw":"exchange","addr":"0x40","size":8,"old":0,"val":1,"ok":true,"lat":140,"src":"remote_cache","peer":0}
{"t":470,"ev":"lock","th":1,"addr":"0x40","act":"acquire","mode":"exclusive"}
{"t":480,"ev":"op","th":1,"cpu":1,"op":"store","addr":"0x40","size":8,"val":0,"lat":1,"src":"l1"}
{"t":481,"ev":"lock","th":1,"addr":"0x40","act":"release","mode":"exclusive"}
{"t":500,"ev":"end","steps":5,"outcome":"pass"}
)";

// TSO: a buffered store, a futex wait queue, a drain after the waiter parked.
const std::string kTso =
    R"({"format":"lockstep-trace","version":1,"scenario":"t.yaml","name":"tso","strategy":"dfs","seed":1,"execution":0,"memory_model":"tso","cpus":2,"node_of_cpu":[0,0]}
{"t":0,"ev":"label","addr":"0x0","size":4,"name":"f"}
{"t":0,"ev":"thread","th":0,"name":"waiter","cpu":0}
{"t":0,"ev":"thread","th":1,"name":"waker","cpu":1}
{"t":0,"ev":"state","th":0,"state":"running"}
{"t":0,"ev":"state","th":1,"state":"running"}
{"t":0,"ev":"op","th":1,"cpu":1,"op":"store","addr":"0x0","size":4,"val":1,"lat":1,"buf":true}
{"t":1,"ev":"op","th":1,"cpu":1,"op":"load","addr":"0x0","size":4,"val":1,"lat":1}
{"t":2,"ev":"syscall","th":0,"act":"enter"}
{"t":2,"ev":"op","th":0,"cpu":0,"op":"load","addr":"0x0","size":4,"val":0,"lat":1}
{"t":3,"ev":"futex","th":0,"act":"enqueue","bucket":7,"key":"0x0","waiter":0}
{"t":3,"ev":"op","th":0,"cpu":0,"op":"park","lat":0}
{"t":3,"ev":"state","th":0,"state":"parked"}
{"t":4,"ev":"op","th":1,"cpu":1,"op":"drain","addr":"0x0","size":4,"val":1,"lat":0}
{"t":5,"ev":"state","th":1,"state":"finished"}
{"t":5,"ev":"violation","th":-1,"property":"lost_wakeup","msg":"waiter sleeps"}
{"t":5,"ev":"end","steps":5,"outcome":"violation"}
)";

TEST_CASE("view: lock hand-offs and cache-line transfers become flows, marked when they cross sockets") {
  const Trace t = parse_trace(kHandoff);
  REQUIRE(t.locks.size() == 5);
  CHECK(t.locks[1].act == LockEvent::Act::wait);
  CHECK(t.ops[1].src == "remote_cache");
  CHECK(t.ops[1].peer == 0);
  CHECK(t.ops[1].state == 'M');
  CHECK(t.ops[0].state == 0);  // written before `st` existed: none
  const FlowSet set = derive_flows(t);
  std::size_t handoffs = 0;
  std::size_t transfers = 0;
  for (const Flow& f : set.flows) {
    if (f.kind == FlowKind::lock_handoff) {
      ++handoffs;
      CHECK(f.from == 0);
      CHECK(f.to == 1);
      CHECK(f.t_from == 200);  // a's release
      CHECK(f.t_to == 470);    // b's acquire
      CHECK(f.cross_node);
    }
    if (f.kind == FlowKind::line_transfer) {
      ++transfers;
      CHECK(f.addr == 0x40);
      CHECK(f.cross_node);
    }
  }
  CHECK(handoffs == 1);  // b's release is followed by nobody's acquire
  // b's first exchange takes the line a wrote; a's store takes it back (b wrote 1 over 1:
  // not a write, so the peer names b); b's second exchange takes a's store.
  CHECK(transfers == 3);

  SECTION("the filter and the cap choose what is drawn") {
    FlowFilter only_locks;
    only_locks.wake = only_locks.line_transfer = false;
    CHECK(visible_flows(set, 0, 500, only_locks).shown.size() == 1);
    CHECK(visible_flows(set, 0, 100, only_locks).shown.empty());  // before the release
    FlowFilter capped;
    capped.cap = 2;
    const VisibleFlows v = visible_flows(set, 0, 500, capped);
    CHECK(v.matching == 4);
    CHECK(v.shown.size() == 2);
    FlowFilter thread_b;
    thread_b.thread = 1;
    CHECK(visible_flows(set, 0, 500, thread_b).matching == 4);
    FlowFilter none;
    none.cap = 0;
    CHECK(visible_flows(set, 0, 500, none).shown.empty());
  }
}

TEST_CASE("view: the state at a step shows store buffers, memory, futex queues and lock holders") {
  const Trace t = parse_trace(kTso);
  REQUIRE(t.steps.size() == 6);  // 5 operations and the violation

  const StepState after_store = state_at(t, 0);
  REQUIRE(after_store.store_buffers[1].size() == 1);
  CHECK(after_store.store_buffers[1][0].value == 1);
  CHECK(after_store.memory.count(0) == 0);  // nothing has reached memory yet

  const StepState after_forwarded_load = state_at(t, 1);
  CHECK(after_forwarded_load.memory.count(0) == 0);  // read from its own buffer: says nothing of memory

  const StepState parked = state_at(t, 3);
  CHECK(parked.memory.at(0).value == 0);  // the waiter read 0
  REQUIRE(parked.futex_queues.count(7) == 1);
  CHECK(parked.futex_queues.at(7).front().waiter == 0);
  CHECK(parked.threads[0].state == ThreadState::parked);
  CHECK(parked.store_buffers[1].size() == 1);

  const StepState drained = state_at(t, 4);
  CHECK(drained.store_buffers[1].empty());
  CHECK(drained.memory.at(0).value == 1);
  CHECK(drained.memory.at(0).writer == 1);
  CHECK(drained.memory.at(0).this_step);

  const StepState end = state_at(t, 5);
  CHECK(end.at_violation);
  CHECK(end.futex_queues.at(7).size() == 1);  // the lost wakeup: still queued, nobody to wake it
  CHECK(end.threads[1].state == ThreadState::finished);
  const std::string text = describe(t, end);
  CHECK(text.find("bucket 7: waiter on f") != std::string::npos);
  CHECK(text.find("(the violation)") != std::string::npos);
  CHECK_THROWS_AS(state_at(t, 6), std::out_of_range);

  const Trace h = parse_trace(kHandoff);
  // Step 2 is a's store at t 200 (steps go by time): a acquired at 100, b began waiting at
  // 155, and a's release comes after the store in the file.
  const StepState holding = state_at(h, 2);
  REQUIRE(holding.lock_holders.count(0x40) == 1);
  CHECK(holding.lock_holders.at(0x40).front().thread == 0);
  CHECK(holding.lock_waiters.at(0x40) == std::vector<int>{1});
  const StepState handed = state_at(h, 4);  // b's store at 480, after its acquire at 470
  REQUIRE(handed.lock_holders.count(0x40) == 1);
  CHECK(handed.lock_holders.at(0x40).front().thread == 1);
  CHECK(handed.lock_waiters.empty());
}

TEST_CASE("view: lock holds, lock waits and futex queueing become bands under the lanes") {
  const Trace h = parse_trace(kHandoff);
  const std::vector<ThreadBands> bands = derive_bands(h);
  REQUIRE(bands.size() == 2);
  REQUIRE(bands[0].bands.size() == 1);
  CHECK(bands[0].bands[0].kind == Band::Kind::lock_held);
  CHECK(bands[0].bands[0].begin == 100);
  CHECK(bands[0].bands[0].end == 200);
  REQUIRE(bands[1].bands.size() == 2);
  CHECK(bands[1].bands[0].kind == Band::Kind::lock_wait);
  CHECK(bands[1].bands[0].begin == 155);
  CHECK(bands[1].bands[0].end == 470);
  CHECK(bands[1].bands[1].kind == Band::Kind::lock_held);
  CHECK(bands[1].bands[1].end == 481);
  CHECK(!bands[1].bands[1].open);
  CHECK(bands[1].longest_ns == 315);

  const std::vector<ThreadBands> lost = derive_bands(parse_trace(kTso));
  REQUIRE(lost[0].bands.size() == 2);
  CHECK(lost[0].bands[0].kind == Band::Kind::syscall);  // futex_wait never returned
  CHECK(lost[0].bands[0].begin == 2);
  CHECK(lost[0].bands[0].end == 5);
  CHECK(lost[0].bands[0].open);
  CHECK(lost[0].bands[1].kind == Band::Kind::futex_queued);
  CHECK(lost[0].bands[1].begin == 3);
  CHECK(lost[0].bands[1].end == 5);  // never dequeued: runs to the end
  CHECK(lost[0].bands[1].open);
  CHECK(lost[1].bands.empty());
}

TEST_CASE("view: search queries match by thread, CPU, address, operation and text") {
  const Trace t = parse_trace(kHandoff);
  auto count = [&](const char* q) { return EventFilter::parse(q).matching_steps(t).size(); };
  CHECK(count("") == t.steps.size());
  CHECK(count("thread:1") == 3);
  CHECK(count("thread:b") == 3);
  CHECK(count("cpu:0") == 2);
  CHECK(count("op:rmw") == 3);
  CHECK(count("op:exchange thread:0") == 1);
  CHECK(count("addr:0x40") == 5);
  CHECK(count("addr:lock op:store") == 2);
  CHECK(count("addr:0x41") == 0);
  CHECK(count("remote_cache") == 3);  // the description says where the line came from
  CHECK(count("remote_cache cpu:1") == 2);
  CHECK_THROWS_AS(EventFilter::parse("cpu:x"), std::invalid_argument);
  CHECK_THROWS_AS(EventFilter::parse("addr:0xZZ"), std::invalid_argument);
  CHECK_THROWS_AS(EventFilter::parse("op:"), std::invalid_argument);

  const EventFilter stores = EventFilter::parse("op:store");
  CHECK(stores.next_match(t, std::nullopt, false) == 2u);
  CHECK(stores.next_match(t, 2, false) == 4u);
  CHECK(stores.next_match(t, 4, false) == 2u);  // wraps around
  CHECK(stores.next_match(t, 2, true) == 4u);
  CHECK(EventFilter::parse("cpu:7").next_match(t, std::nullopt, false) == std::nullopt);
}

}  // namespace
}  // namespace lockstep::view
