// Simulated physical memory: where designs' shared objects and threads' stacks live.
//
// Objects are real host objects (the design's code reads and writes them through P), but
// every host byte in the arena has a simulated physical address, so that alignment and
// placement are real in the simulation: a packed bucket array shares cachelines and an
// aligned one does not, and memory allocated on node 1 has node 1's addresses.
//
// The arena is reserved once per engine and reused by every execution; resetting a run is
// resetting the bump pointers, so a run starts in microseconds (docs/architecture.md,
// "Determinism rules": exploration is stateless).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/platform.hpp"
#include "trace/address_names.hpp"

namespace lockstep::sim {

inline constexpr int kMaxNodes = 16;
inline constexpr std::size_t kNodeHeapBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxThreads = 1024;
inline constexpr std::size_t kStackBytes = std::size_t{128} << 10;
inline constexpr std::size_t kPageBytes = 4096;
// The shared objects a thread keeps in its frames (P::Local: a futex_q, an MCS node), per
// thread. They are small and nest a few deep; running out is an error, not an overflow.
inline constexpr std::size_t kFrameBytes = std::size_t{16} << 10;
// Simulated physical layout: node n's memory starts at n << kNodeAddressShift; threads'
// frames sit in their own range above every node's, thread i's at kFrameAddressBase +
// i * kFrameBytes, growing down from its top as a stack does.
inline constexpr int kNodeAddressShift = 36;
inline constexpr std::uint64_t kFrameAddressBase = std::uint64_t{kMaxNodes} << kNodeAddressShift;
inline constexpr std::size_t kFramesBytes = kFrameBytes * kMaxThreads;
inline constexpr std::size_t kStackSlotBytes = kStackBytes + kPageBytes;  // guard page below each stack
inline constexpr std::size_t kStacksBytes = kStackSlotBytes * kMaxThreads;
inline constexpr std::size_t kHeapsBytes = kNodeHeapBytes * kMaxNodes;
static_assert(kNodeHeapBytes <= (std::uint64_t{1} << kNodeAddressShift));
static_assert(kStackBytes % kPageBytes == 0);

// Where the pages of an unbacked range live: all on one node, or interleaved page by page
// over every node (Linux's MPOL_INTERLEAVE).
// Where P::allocate puts memory: on the node the design asks for; all on node 0 (the seed's
// futex table, allocated on one node before 3.14); or spread round robin over the nodes,
// one allocation after the other (as MPOL_INTERLEAVE spreads pages).
enum class MemoryPolicy : std::uint8_t { as_requested, node0, interleave };

struct Placement {
  bool interleave = false;
  NodeId node = 0;  // when !interleave
};

inline constexpr std::uint64_t kUnbackedAddressBase = std::uint64_t{1} << 56;

class SimMemory {
 public:
  SimMemory();
  ~SimMemory();
  SimMemory(const SimMemory&) = delete;
  SimMemory& operator=(const SimMemory&) = delete;

  // Forgets every allocation and label of the previous execution.
  void reset();

  // Zeroed memory on `node`, aligned to `align` (a power of two).
  void* allocate(std::size_t bytes, std::size_t align, NodeId node);
  void set_policy(MemoryPolicy policy, int nodes) {
    policy_ = policy;
    nodes_ = nodes;
  }

  // The host stack thread `index` runs on (a guard page sits below it, once guard_stack).
  // Host stacks have no simulated addresses: where a compiler puts a local depends on the
  // build (a debug build's frames are larger), so a shared object there would move with
  // the build and every timed figure with it. Shared objects in a thread's frames are
  // P::Local, allocated below.
  void* stack_base(std::size_t index) const;
  // Protects the guard page below stack `index` (once; before the stack is first used).
  void guard_stack(std::size_t index);

  // A frame object for thread `index` (P::Local): `bytes` zeroed bytes aligned to `align`,
  // below the thread's last one, and the depth to return to when it goes (pop_frame).
  struct FramePush {
    void* host = nullptr;
    std::uint32_t depth_before = 0;
  };
  FramePush push_frame(std::size_t index, std::size_t bytes, std::size_t align);
  // Frees `host`, which must be its thread's innermost frame object (last in, first out).
  // Not necessarily from that thread: an aborted thread is unwound from the host.
  void pop_frame(const void* host, std::uint32_t depth_before);
  // The lowest live frame byte of thread `index`: its frame objects at or above this address
  // are alive, those below have gone.
  const void* frame_floor(std::size_t index) const;
  // The index of the thread whose frames hold `host`, or -1 when none does.
  long frame_owner(const void* host) const;

  // The simulated address of a host pointer into the arena. A pointer outside it is a
  // design bug (shared state the simulator cannot see), reported by an exception.
  // Inline: every simulated access makes both translations.
  std::uint64_t address_of(const void* host) const {
    const auto* p = static_cast<const std::byte*>(host);
    if (p >= heaps_ && p < heaps_ + kHeapsBytes) {
      const auto offset = static_cast<std::uint64_t>(p - heaps_);
      const std::uint64_t node = offset / kNodeHeapBytes;
      return (node << kNodeAddressShift) + offset % kNodeHeapBytes;
    }
    if (p >= frames_ && p < frames_ + kFramesBytes) return kFrameAddressBase + static_cast<std::uint64_t>(p - frames_);
    outside_arena(p);
  }
  NodeId node_of_address(std::uint64_t addr) const {
    if (addr >= kUnbackedAddressBase) return node_of_unbacked(addr);
    if (addr >= kFrameAddressBase) return 0;
    return static_cast<NodeId>(addr >> kNodeAddressShift);
  }
  // The host bytes behind a simulated address of the arena (the inverse of address_of).
  void* host_of(std::uint64_t addr) const;

  // A range of simulated addresses with no host bytes behind it, for workloads that only
  // need addresses (the latency probe walks a gigabyte this way). `nodes` is how many nodes
  // interleaving spreads over.
  std::uint64_t reserve_unbacked(std::uint64_t bytes, Placement placement, int nodes);

  // Heap bytes allocated so far in this execution, over all nodes (stacks not included).
  std::uint64_t heap_bytes() const;

  // Names `bytes` from `host` (and with a layout, its fields and array elements).
  void label(const void* host, std::size_t bytes, std::string_view name, const LabelLayout& layout = {});
  // `addr` in the design's words (trace/address_names.hpp: "bucket[14].waiters"); hex when
  // unlabeled. For diagnostics: it indexes the labels on each call.
  std::string describe(std::uint64_t addr) const;
  // Every label of this execution as one index, to name many addresses (describe() builds it
  // for each call).
  trace::AddressNames names() const;

 private:
  [[noreturn]] void outside_arena(const std::byte* host) const;
  NodeId node_of_unbacked(std::uint64_t addr) const;

  // Per thread: bytes of its frame area in use (from the top down). Only threads below
  // framed_ have used theirs since the last reset (exploration resets thousands of times a
  // second; the table is 4 KiB).
  std::array<std::uint32_t, kMaxThreads> frame_depth_{};
  std::size_t framed_ = 0;
  std::array<bool, kMaxThreads> guarded_{};  // guard_stack done
  std::byte* arena_ = nullptr;
  std::size_t arena_bytes_ = 0;
  std::byte* stacks_ = nullptr;
  std::byte* frames_ = nullptr;
  std::byte* heaps_ = nullptr;
  std::array<std::size_t, kMaxNodes> used_{};
  // Per node: how much of its heap has had its pages faulted in (kept across executions).
  static constexpr std::size_t kPopulateChunk = std::size_t{256} << 10;
  std::array<std::size_t, kMaxNodes> populated_{};
  MemoryPolicy policy_ = MemoryPolicy::as_requested;
  int nodes_ = 1;
  int next_node_ = 0;  // interleave: where the next allocation goes
  // Labels in labeling order, as the design gave them (field names are its string
  // literals): cheap to add on every execution; turned into names only by describe().
  struct Label {
    std::uint64_t addr = 0;
    std::uint64_t bytes = 0;
    std::string name;
    std::uint64_t stride = 0;
    std::uint64_t first = 0;
    std::vector<LabelField> fields;
  };
  std::vector<Label> labels_;
  struct Unbacked {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    Placement placement;
    int nodes = 1;
  };
  std::vector<Unbacked> unbacked_;
  std::uint64_t unbacked_next_ = kUnbackedAddressBase;
};

}  // namespace lockstep::sim
