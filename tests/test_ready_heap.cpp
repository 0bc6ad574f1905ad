#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/exec/ready_heap.hpp"
#include "sim/rng.hpp"

using namespace lockstep::sim;

namespace {
// Draws that differ only above the thread id's bits, and often not at all: many ties, so the
// thread id decides often.
std::uint64_t tie_draw(Rng& rng) { return (rng.next() % 3) << ReadyEntry::kThreadBits; }
}  // namespace

// The timed engine's queue must pick exactly what a sorted list would (the earliest clock,
// then the smallest tie key, then the smallest thread id), with exchange_top standing for a
// push of the thread that just ran followed by a pop.
TEST_CASE("ready heap: pop and exchange_top agree with a linear-scan reference", "[engine]") {
  Rng rng(7);
  ReadyHeap heap;
  std::vector<ReadyEntry> reference;
  auto take_earliest = [&reference] {
    const auto it = std::min_element(reference.begin(), reference.end());
    const ThreadId id = it->thread();
    reference.erase(it);
    return id;
  };
  for (ThreadId id = 0; id < 40; ++id) {
    const ReadyEntry e{rng.next() % 50, tie_draw(rng), id};
    heap.push(e);
    reference.push_back(e);
  }
  ThreadId running = take_earliest();
  REQUIRE(heap.pop() == running);
  std::uint64_t clock = 0;
  int kept_running = 0;
  for (int step = 0; step < 20000; ++step) {
    clock += rng.next() % 4;  // small steps: the running thread is often still the earliest
    const ReadyEntry back{clock + rng.next() % 8, tie_draw(rng), running};
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

TEST_CASE("ready heap entries order by clock, then the tie draw's high bits, then the thread", "[engine]") {
  constexpr std::uint64_t kUnit = std::uint64_t{1} << ReadyEntry::kThreadBits;
  CHECK(ReadyEntry(5, ~std::uint64_t{0}, 900) < ReadyEntry(6, 0, 0));          // clock first
  CHECK(ReadyEntry(7, 2 * kUnit, 900) < ReadyEntry(7, 3 * kUnit, 1));          // then the draw
  CHECK(ReadyEntry(7, 3 * kUnit + 5, 2) < ReadyEntry(7, 3 * kUnit + 1, 3));    // draw's low bits ignored
  CHECK_FALSE(ReadyEntry(7, 3 * kUnit, 3) < ReadyEntry(7, 3 * kUnit, 2));      // then the thread
  CHECK(ReadyEntry(7, 3 * kUnit, 1023).thread() == 1023);
  CHECK(ReadyEntry(7, 3 * kUnit, 1023).clock_ns() == 7);
}
