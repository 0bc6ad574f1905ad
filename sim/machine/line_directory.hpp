// The machine model's directory: per cacheline, which core owns it, which cores share it
// and until when its last coherence transaction keeps it busy.
//
// Every simulated access looks its line up here, so it is an open-addressed table (linear
// probing over a power-of-two array, each slot a key and its entry side by side: a lookup
// is one multiply and usually one host cacheline) instead of a node-based
// std::unordered_map. Entries are never erased during an execution (a line nobody holds
// behaves as one never seen), which keeps probing simple. Starting a new execution
// empties the table in O(1), as the caches do: a key carries the generation it was written
// in, and a slot of an older generation is free. The table is looked up only, never
// iterated, so its layout cannot reach a result.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/host_pages.hpp"
#include "sim/host_prefetch.hpp"

namespace lockstep::sim::machine {

// The state of the one copy a core may hold apart from Shared ones (MESI, MOESI). Shared
// copies are the `sharers`; a core in neither holds the line Invalid.
enum class OwnerState : std::uint8_t {
  exclusive,  // E: the only copy, clean
  modified,   // M: the only copy, dirty
  owned,      // O (MOESI only): dirty, with Shared copies elsewhere; it answers readers and
              // writes the line back when it leaves
  forward,    // F (MESIF only): clean, with Shared copies elsewhere; it answers the next reader
};

struct DirectoryLine {
  std::int16_t owner = -1;  // core holding it E, M or O, or -1
  OwnerState owner_state = OwnerState::exclusive;
  // The package whose shared last level holds the only dirty copy (the owner left it there
  // when it evicted the line), or -1; written back to memory when that cache evicts it.
  std::int8_t dirty_llc = -1;
  std::uint16_t llc_packages = 0;  // bit p: package p's shared last level holds a copy
  std::uint8_t home = 0;           // the node whose memory holds the line (writebacks go there)
  // The transaction that keeps the line busy is the owner's own (its fill, or its locked
  // instruction's hold): until then the owner's core has no usable copy.
  bool owner_busy = false;
  // (The members so far fill 8 bytes, which keeps a directory slot at 48.)
  double busy_until_ns = 0;  // the line's last coherence transaction ends then
  std::vector<int> sharers;  // cores holding it Shared, in the order they got it (the order
                             // invalidations are sent in, which decides link bookings)

  bool dirty() const { return owner >= 0 && (owner_state == OwnerState::modified || owner_state == OwnerState::owned); }
  // E or M: no other copy, so the owner writes without a message.
  bool sole_copy() const { return owner_state == OwnerState::exclusive || owner_state == OwnerState::modified; }
  bool shared_by(int core) const { return std::find(sharers.begin(), sharers.end(), core) != sharers.end(); }
};

static_assert(sizeof(DirectoryLine) <= 40, "a directory slot should stay at 48 bytes");

class LineDirectory {
 public:
  static constexpr int kLineBits = 52;  // line numbers fit below the generation bits

  LineDirectory() { rehash(kInitialSlots); }

  // A new generation frees every slot; when generations run out, keys are wiped once.
  void clear() {
    size_ = 0;
    if (++generation_ < kGenerations) return;
    generation_ = 0;
    for (Slot& s : slots_) s.key = kFree;
  }

  // Room for `lines` entries without growing, up to a cap (the hint may overestimate: a
  // workload can allocate far more than it touches). Entries stay where they are unless
  // the table grows, and it is looked up only, so this cannot reach a result.
  void reserve(std::uint64_t lines) {
    const std::uint64_t wanted = std::min<std::uint64_t>(2 * lines, kMaxReservedSlots);
    if (wanted > slots_.size()) rehash(std::bit_ceil(static_cast<std::size_t>(wanted)));
  }

  // The entry of `line`, created empty if absent. The reference stays valid until the next
  // call of this function (which may grow the table); find() never moves entries.
  DirectoryLine& find_or_insert(std::uint64_t line) {
    if (line >> kLineBits != 0) throw std::out_of_range("line directory: line number too large");
    const std::uint64_t key = key_of(line);
    std::size_t i = home(line);
    for (; live(i); i = (i + 1) & mask_)
      if (slots_[i].key == key) return slots_[i].line;
    if (2 * (size_ + 1) > slots_.size()) {
      rehash(2 * slots_.size());
      return find_or_insert(line);
    }
    ++size_;
    Slot& slot = slots_[i];
    slot.key = key;
    slot.line.owner = -1;
    slot.line.owner_state = OwnerState::exclusive;
    slot.line.dirty_llc = -1;
    slot.line.llc_packages = 0;
    slot.line.home = 0;
    slot.line.owner_busy = false;
    slot.line.busy_until_ns = 0;
    slot.line.sharers.clear();  // keeps its capacity: a reused slot allocates nothing
    return slot.line;
  }

  // Starts loading the host line of `line`'s home slot; changes nothing.
  void prefetch(std::uint64_t line) const { prefetch_host_line(&slots_[home(line)]); }

  DirectoryLine* find(std::uint64_t line) {
    const std::uint64_t key = key_of(line);
    for (std::size_t i = home(line); live(i); i = (i + 1) & mask_)
      if (slots_[i].key == key) return &slots_[i].line;
    return nullptr;
  }
  const DirectoryLine* find(std::uint64_t line) const { return const_cast<LineDirectory*>(this)->find(line); }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  static constexpr std::uint64_t kMaxReservedSlots = std::uint64_t{1} << 19;  // 24 MiB of slots
  static constexpr std::uint64_t kGenerations = (std::uint64_t{1} << (64 - kLineBits)) - 1;
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};  // generation kGenerations: never live

  struct Slot {
    std::uint64_t key = kFree;  // generation << kLineBits | line
    DirectoryLine line;
  };

  std::uint64_t key_of(std::uint64_t line) const { return generation_ << kLineBits | line; }
  // Fibonacci hashing: line numbers are mostly consecutive, the multiply spreads them.
  std::size_t home(std::uint64_t line) const {
    return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  bool live(std::size_t i) const { return slots_[i].key >> kLineBits == generation_; }

  void rehash(std::size_t slots) {
    std::vector<Slot, PopulatedAllocator<Slot>> old(slots);
    old.swap(slots_);
    mask_ = slots - 1;
    shift_ = 64 - std::countr_zero(slots);
    size_ = 0;
    for (Slot& s : old) {
      if (s.key >> kLineBits != generation_) continue;
      std::size_t i = home(s.key & ((std::uint64_t{1} << kLineBits) - 1));
      while (live(i)) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
      ++size_;
    }
  }

  std::vector<Slot, PopulatedAllocator<Slot>> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace lockstep::sim::machine
