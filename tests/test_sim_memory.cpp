#include <catch2/catch.hpp>

#include <cstddef>
#include <stdexcept>

#include "sim/exec/memory.hpp"

using namespace lockstep::sim;

// Simulated stack addresses count from where a thread's body starts (its anchor), so an
// object at a given depth below the body's first frame has one simulated address however
// deep the engine's own frames above the body are.
TEST_CASE("simulated stack addresses count from the thread body's anchor", "[engine]") {
  SimMemory memory;
  constexpr std::size_t kThread = 3;
  auto* bottom = static_cast<std::byte*>(memory.stack_base(kThread));
  std::byte* top = bottom + kStackBytes;
  const std::uint64_t slot_top = kStackAddressBase + (kThread + 1) * kStackSlotBytes;

  // Before any anchor: host and simulated depths are the same.
  CHECK(memory.address_of(top - 48) == slot_top - 48);

  // The same object 48 bytes below the anchor, with the engine's frames 208 or 608 bytes deep.
  for (const std::size_t engine_frames : {std::size_t{208}, std::size_t{608}}) {
    std::byte* anchor = top - engine_frames;
    memory.set_stack_anchor(kThread, anchor);
    const std::uint64_t sim = memory.address_of(anchor - 48);
    CHECK(sim == slot_top - SimMemory::kAnchorDepth - 48);
    CHECK(memory.host_of(sim) == anchor - 48);
    CHECK(memory.stack_owner(anchor - 48) == static_cast<long>(kThread));
    // The deepest usable byte stays inside the thread's simulated slot.
    CHECK(memory.address_of(bottom) >= kStackAddressBase + kThread * kStackSlotBytes);
    CHECK(memory.host_of(memory.address_of(bottom)) == bottom);
  }

  // Engine frames deeper than the reserved depth are an internal error, not a silent shift.
  CHECK_THROWS_AS(memory.set_stack_anchor(kThread, top - SimMemory::kAnchorDepth - 16), std::logic_error);

  // A new execution forgets the anchors.
  memory.reset();
  CHECK(memory.address_of(top - 48) == slot_top - 48);
}
