#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/exec/ready_heap.hpp"
#include "sim/rng.hpp"

using namespace lockstep::sim;

// The timed engine's queue must pick exactly what a sorted list would (the earliest clock,
// then the smallest tie key, then the smallest thread id), with exchange_top standing for a
// push of the thread that just ran followed by a pop.
TEST_CASE("ready heap: pop and exchange_top agree with a linear-scan reference", "[engine]") {
  Rng rng(7);
  ReadyHeap heap;
  std::vector<ReadyEntry> reference;
  auto take_earliest = [&reference] {
    const auto it = std::min_element(reference.begin(), reference.end());
    const ThreadId id = it->thread;
    reference.erase(it);
    return id;
  };
  for (ThreadId id = 0; id < 40; ++id) {
    const ReadyEntry e{rng.next() % 50, rng.next() % 3, id};
    heap.push(e);
    reference.push_back(e);
  }
  ThreadId running = take_earliest();
  REQUIRE(heap.pop() == running);
  std::uint64_t clock = 0;
  int kept_running = 0;
  for (int step = 0; step < 20000; ++step) {
    clock += rng.next() % 4;  // small steps: the running thread is often still the earliest
    const ReadyEntry back{clock + rng.next() % 8, rng.next() % 3, running};
    reference.push_back(back);
    const ThreadId expected = take_earliest();
    const ThreadId next = heap.exchange_top(back);
    REQUIRE(next == expected);
    if (next == running) ++kept_running;
    running = next;
  }
  CHECK(kept_running > 0);
  CHECK(kept_running < 20000);
  while (!reference.empty()) REQUIRE(heap.pop() == take_earliest());
  CHECK(heap.empty());
}
