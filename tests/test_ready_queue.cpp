#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/exec/ready_queue.hpp"
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
TEST_CASE("ready queue: pop and exchange_top agree with a linear-scan reference", "[engine]") {
  Rng rng(7);
  ReadyQueue queue;
  std::vector<ReadyEntry> reference;
  auto take_earliest = [&reference] {
    const auto it = std::min_element(reference.begin(), reference.end());
    const ThreadId id = it->thread();
    reference.erase(it);
    return id;
  };
  for (ThreadId id = 0; id < 40; ++id) {
    const ReadyEntry e{rng.next() % 50, tie_draw(rng), id};
    queue.push(e);
    reference.push_back(e);
  }
  ThreadId running = take_earliest();
  REQUIRE(queue.pop() == running);
  std::uint64_t clock = 0;
  int kept_running = 0;
  for (int step = 0; step < 20000; ++step) {
    clock += rng.next() % 4;  // small steps: the running thread is often still the earliest
    const ReadyEntry back{clock + rng.next() % 8, tie_draw(rng), running};
    reference.push_back(back);
    const ThreadId expected = take_earliest();
    const ThreadId next = queue.exchange_top(back);
    REQUIRE(next == expected);
    if (next == running) ++kept_running;
    running = next;
  }
  CHECK(kept_running > 0);
  CHECK(kept_running < 20000);
  while (!reference.empty()) REQUIRE(queue.pop() == take_earliest());
  CHECK(queue.empty());
}

TEST_CASE("ready queue entries order by clock, then the tie draw's high bits, then the thread", "[engine]") {
  constexpr std::uint64_t kUnit = std::uint64_t{1} << ReadyEntry::kThreadBits;
  CHECK(ReadyEntry(5, ~std::uint64_t{0}, 900) < ReadyEntry(6, 0, 0));        // clock first
  CHECK(ReadyEntry(7, 2 * kUnit, 900) < ReadyEntry(7, 3 * kUnit, 1));        // then the draw
  CHECK(ReadyEntry(7, 3 * kUnit + 5, 2) < ReadyEntry(7, 3 * kUnit + 1, 3));  // draw's low bits ignored
  CHECK_FALSE(ReadyEntry(7, 3 * kUnit, 3) < ReadyEntry(7, 3 * kUnit, 2));    // then the thread
  CHECK(ReadyEntry(7, 3 * kUnit, 1023).thread() == 1023);
  CHECK(ReadyEntry(7, 3 * kUnit, 1023).clock_ns() == 7);
}

// Threads come and go (a thread blocks, another wakes) between the steps, the queue grows
// past its first 32 leaves twice, and it is cleared and used again: freed leaves are
// reused, and thread 1023 (whose id is all ones, as the empty leaves' sentinel's is) is
// queued like any other.
TEST_CASE("ready queue: pushes and pops between steps, growth and clear agree with the reference", "[engine]") {
  Rng rng(13);
  ReadyQueue queue;
  for (int round = 0; round < 2; ++round) {
    queue.clear();
    std::vector<ReadyEntry> reference;
    std::vector<ThreadId> idle;
    for (ThreadId id = 0; id < 100; ++id) idle.push_back(id);
    idle.push_back(1023);
    auto take_earliest = [&reference] {
      const auto it = std::min_element(reference.begin(), reference.end());
      const ThreadId id = it->thread();
      reference.erase(it);
      return id;
    };
    std::uint64_t clock = 0;
    ThreadId running = kNoThread;
    std::size_t max_queued = 0;
    for (int step = 0; step < 20000; ++step) {
      clock += rng.next() % 4;
      const auto choice = rng.next() % 4;
      if (choice == 0 && !idle.empty()) {  // a blocked thread wakes
        const std::size_t k = rng.next() % idle.size();
        const ReadyEntry e{clock + rng.next() % 16, tie_draw(rng), idle[k]};
        idle.erase(idle.begin() + static_cast<std::ptrdiff_t>(k));
        queue.push(e);
        reference.push_back(e);
      } else if (choice == 1 && running != kNoThread) {  // the running thread blocks
        idle.push_back(running);
        running = kNoThread;
      } else if (running != kNoThread) {  // it steps
        const ReadyEntry back{clock + rng.next() % 8, tie_draw(rng), running};
        reference.push_back(back);
        const ThreadId expected = take_earliest();
        REQUIRE(queue.exchange_top(back) == expected);
        running = expected;
      }
      if (running == kNoThread && !reference.empty()) {
        const ThreadId expected = take_earliest();
        REQUIRE(queue.pop() == expected);
        running = expected;
      }
      REQUIRE(queue.empty() == reference.empty());
      max_queued = std::max(max_queued, reference.size());
    }
    CHECK(max_queued > 64);  // grew twice
    while (!reference.empty()) REQUIRE(queue.pop() == take_earliest());
    CHECK(queue.empty());
  }
}
