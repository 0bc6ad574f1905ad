#include <catch2/catch.hpp>

#include <cstddef>
#include <stdexcept>

#include "sim/exec/memory.hpp"

using namespace lockstep::sim;

// Frame objects (P::Local) get their simulated addresses from the simulator: thread i's
// area, from its top down, whatever the host compiler did with the frames that declare them.
// Host stacks have no simulated addresses at all.
TEST_CASE("frame objects have simulated addresses; host stack frames have none", "[engine]") {
  SimMemory memory;
  constexpr std::size_t kThread = 3;
  const std::uint64_t area_top = kFrameAddressBase + (kThread + 1) * kFrameBytes;

  const SimMemory::FramePush a = memory.push_frame(kThread, 40, 8);
  CHECK(memory.address_of(a.host) == area_top - 40);
  const SimMemory::FramePush b = memory.push_frame(kThread, 24, 64);
  CHECK(memory.address_of(b.host) == area_top - 64);  // 40 + 24 bytes deep, at a 64-byte boundary
  const SimMemory::FramePush c = memory.push_frame(kThread, 8, 64);
  CHECK(memory.address_of(c.host) == area_top - 128);  // 72 bytes deep, aligned down to 128
  memory.pop_frame(c.host, c.depth_before);
  CHECK(memory.host_of(memory.address_of(b.host)) == b.host);
  CHECK(memory.frame_owner(b.host) == static_cast<long>(kThread));
  CHECK(memory.frame_floor(kThread) == b.host);

  // Last in, first out: freeing `a` while `b` lives is a design bug.
  CHECK_THROWS_AS(memory.pop_frame(a.host, a.depth_before), std::logic_error);
  memory.pop_frame(b.host, b.depth_before);
  CHECK(memory.frame_floor(kThread) == a.host);
  // The same push again lands where it did (a loop's iterations see one address).
  const SimMemory::FramePush again = memory.push_frame(kThread, 24, 64);
  CHECK(again.host == b.host);
  memory.pop_frame(again.host, again.depth_before);
  memory.pop_frame(a.host, a.depth_before);

  // Running out of the area is an error, not an overflow into the next thread's.
  CHECK_THROWS_AS(memory.push_frame(kThread, kFrameBytes + 1, 8), std::length_error);

  // A local on a host stack is refused, with a message that says what to do.
  auto* host_local = static_cast<std::byte*>(memory.stack_base(kThread)) + 100;
  CHECK_THROWS_WITH(memory.address_of(host_local), Catch::Contains("P::Local"));

  // A new execution forgets what the last one pushed.
  memory.push_frame(kThread, 16, 8);
  memory.reset();
  CHECK(memory.address_of(memory.push_frame(kThread, 40, 8).host) == area_top - 40);
}
