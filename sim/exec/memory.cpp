#include "sim/exec/memory.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/host_pages.hpp"

namespace lockstep::sim {

SimMemory::SimMemory() : arena_bytes_(kStacksBytes + kFramesBytes + kHeapsBytes) {
  void* p = mmap(nullptr, arena_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    // Address space, not memory (MAP_NORESERVE: pages are touched as threads use them), but
    // an address-space limit counts it: say what takes it and what the user can change
    // (`--workers 4` under a 4 GiB `ulimit -v` used to fail naming nothing to change).
    const int error = errno;
    struct rlimit as {};
    const bool limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
    throw std::runtime_error(fmt::format(
        "simulated memory: cannot reserve the {:.1f} GiB of address space one simulated machine takes ({}; it is "
        "reserved, not used: pages are touched as simulated threads run). Each search worker (--workers, or the "
        "strategy's `workers:`) and each row run at once has one.{}",
        static_cast<double>(arena_bytes_) / (1ULL << 30), std::strerror(error),
        limited ? fmt::format(" This process may have {:.1f} GiB of address space (ulimit -v): use fewer workers, or "
                              "raise the limit",
                              static_cast<double>(as.rlim_cur) / (1ULL << 30))
                : ""));
  }
  arena_ = static_cast<std::byte*>(p);
  stacks_ = arena_;
  frames_ = arena_ + kStacksBytes;
  heaps_ = frames_ + kFramesBytes;
}

// Guard pages are protected when a stack is first used, not all 1,024 up front: each splits
// the arena's mapping in two, and one engine per worker with every guard page set took 2,048
// mappings each, past the kernel's limit (vm.max_map_count, 65,530) at 32 workers.
void SimMemory::guard_stack(std::size_t index) {
  if (index >= kMaxThreads) throw std::out_of_range(fmt::format("guard_stack: no thread {}", index));
  if (guarded_[index]) return;
  if (mprotect(stacks_ + index * kStackSlotBytes, kPageBytes, PROT_NONE) != 0)
    throw std::runtime_error(
        fmt::format("simulated memory: cannot protect the guard page of stack {} (the kernel's "
                    "limit on mappings, vm.max_map_count?)",
                    index));
  guarded_[index] = true;
}

SimMemory::~SimMemory() {
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer: the frames a fiber's stack still held when it last switched away
  // (its entry and exit frames, which never return) keep their redzones poisoned, and the
  // shadow outlives the mapping, so memory mapped here later (a directory block, say) would
  // report false stack overflows. (Still needed with the engine's fiber annotations: the
  // suite fails without it.)
  ASAN_UNPOISON_MEMORY_REGION(stacks_, kStacksBytes);
#endif
  munmap(arena_, arena_bytes_);
}

void SimMemory::reset() {
  std::fill_n(frame_depth_.begin(), framed_, 0);
  framed_ = 0;
  used_.fill(0);
  next_node_ = 0;
  labels_.clear();
  unbacked_.clear();
  unbacked_next_ = kUnbackedAddressBase;
}

std::uint64_t SimMemory::reserve_unbacked(std::uint64_t bytes, Placement placement, int nodes) {
  if (nodes < 1 || nodes > kMaxNodes) throw std::invalid_argument("reserve_unbacked: bad node count");
  if (!placement.interleave && (placement.node < 0 || placement.node >= nodes))
    throw std::invalid_argument(fmt::format("reserve_unbacked: node {} does not exist", placement.node));
  const std::uint64_t begin = unbacked_next_;
  unbacked_next_ += (bytes + kPageBytes - 1) / kPageBytes * kPageBytes + kPageBytes;
  unbacked_.push_back(Unbacked{begin, begin + bytes, placement, nodes});
  return begin;
}

std::uint64_t SimMemory::heap_bytes() const {
  std::uint64_t sum = 0;
  for (std::size_t n : used_) sum += n;
  return sum;
}

void* SimMemory::allocate(std::size_t bytes, std::size_t align, NodeId node) {
  if (node < 0 || node >= kMaxNodes)
    throw std::invalid_argument(fmt::format("allocation on node {} (the simulator has {} at most)", node, kMaxNodes));
  if (policy_ == MemoryPolicy::node0) node = 0;
  if (policy_ == MemoryPolicy::interleave) node = next_node_++ % nodes_;
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument(fmt::format("alignment {} is not a power of two", align));
  const auto n = static_cast<std::size_t>(node);
  const std::size_t start = (used_[n] + align - 1) & ~(align - 1);
  if (start + bytes > kNodeHeapBytes)
    throw std::length_error(fmt::format("node {} is out of simulated heap ({} bytes)", node, kNodeHeapBytes));
  used_[n] = start + bytes;
  std::byte* const heap = heaps_ + n * kNodeHeapBytes;
  if (used_[n] > populated_[n]) {
    // The first execution to reach this far: fault the pages in a chunk at a time, not one
    // by one as the memset below touches them (host_pages.hpp). They stay for later ones.
    const std::size_t end = std::min(kNodeHeapBytes, (used_[n] + kPopulateChunk - 1) / kPopulateChunk * kPopulateChunk);
    populate_pages(heap + populated_[n], end - populated_[n]);
    populated_[n] = end;
  }
  std::byte* p = heap + start;
  std::memset(p, 0, bytes);
  return p;
}

void* SimMemory::stack_base(std::size_t index) const { return stacks_ + index * kStackSlotBytes + kPageBytes; }

SimMemory::FramePush SimMemory::push_frame(std::size_t index, std::size_t bytes, std::size_t align) {
  if (index >= kMaxThreads) throw std::out_of_range(fmt::format("push_frame: no thread {}", index));
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument(fmt::format("alignment {} is not a power of two", align));
  const std::uint32_t before = frame_depth_[index];
  // Down from the top of the thread's area, as a stack grows: the object starts at
  // top - depth, aligned down (the area's top is page aligned, so offsets align as addresses).
  const std::size_t depth = (before + bytes + align - 1) & ~(align - 1);
  if (depth > kFrameBytes)
    throw std::length_error(
        fmt::format("thread {}'s frame objects (P::Local) need more than {} bytes", index, kFrameBytes));
  frame_depth_[index] = static_cast<std::uint32_t>(depth);
  framed_ = std::max(framed_, index + 1);
  std::byte* p = frames_ + (index + 1) * kFrameBytes - depth;
  std::memset(p, 0, bytes);  // not what an earlier execution left there
  return FramePush{p, before};
}

void SimMemory::pop_frame(const void* host, std::uint32_t depth_before) {
  const long owner = frame_owner(host);
  const auto index = static_cast<std::size_t>(owner);
  if (owner < 0 || frames_ + (index + 1) * kFrameBytes - frame_depth_[index] != host)
    throw std::logic_error(fmt::format("thread {}'s frame objects were not freed last in, first out", owner));
  frame_depth_[index] = depth_before;
}

const void* SimMemory::frame_floor(std::size_t index) const {
  return frames_ + (index + 1) * kFrameBytes - frame_depth_[index];
}

long SimMemory::frame_owner(const void* host) const {
  const auto* p = static_cast<const std::byte*>(host);
  if (p < frames_ || p >= frames_ + kFramesBytes) return -1;
  return static_cast<long>(static_cast<std::size_t>(p - frames_) / kFrameBytes);
}

void SimMemory::outside_arena(const std::byte* host) const {
  if (host >= stacks_ && host < stacks_ + kStacksBytes)
    throw std::logic_error(
        "a shared object lives in a host stack frame, whose address depends on the compiler and the build: "
        "declare it as a P::Local (core/platform.hpp)");
  throw std::logic_error(
      "a shared object lives outside simulated memory: allocate it with P::allocate or declare it as a P::Local");
}

void* SimMemory::host_of(std::uint64_t addr) const {
  if (addr >= kFrameAddressBase && addr < kFrameAddressBase + kFramesBytes) return frames_ + (addr - kFrameAddressBase);
  const std::uint64_t node = addr >> kNodeAddressShift;
  const std::uint64_t offset = addr & ((std::uint64_t{1} << kNodeAddressShift) - 1);
  if (addr < kFrameAddressBase && offset < kNodeHeapBytes) return heaps_ + node * kNodeHeapBytes + offset;
  throw std::logic_error(fmt::format("address {:#x} is not in simulated memory", addr));
}

NodeId SimMemory::node_of_unbacked(std::uint64_t addr) const {
  for (const Unbacked& u : unbacked_) {
    if (addr < u.begin || addr >= u.end) continue;
    if (!u.placement.interleave) return u.placement.node;
    return static_cast<NodeId>(((addr - u.begin) / kPageBytes) % static_cast<std::uint64_t>(u.nodes));
  }
  return 0;
}

void SimMemory::label(const void* host, std::size_t bytes, std::string_view name, const LabelLayout& layout) {
  labels_.push_back(Label{address_of(host), bytes, std::string(name), layout.stride, layout.first,
                          std::vector<LabelField>(layout.fields.begin(), layout.fields.end())});
}

trace::AddressNames SimMemory::names() const {
  trace::AddressNames names;
  for (const Label& l : labels_) {  // later labels replace earlier ones at the same start
    trace::NamedRegion r{l.addr, l.bytes, l.name, l.stride, l.first, {}};
    for (const LabelField& f : l.fields) r.fields.push_back(trace::FieldName{f.offset, f.bytes, std::string(f.name)});
    names.add(std::move(r));
  }
  return names;
}

std::string SimMemory::describe(std::uint64_t addr) const { return names().name_of(addr); }

}  // namespace lockstep::sim
