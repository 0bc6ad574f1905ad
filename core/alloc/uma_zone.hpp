// UMA-style zones backed by kegs, with item colouring (docs/os.md, "Coloured allocation";
// the seed's "New UMA features for more efficient memory layout", docs/sources.md section 8).
//
// A keg is a source of items of one size: slabs of `slab_bytes` (a small 4 KiB page, or a
// large 2 MiB one, naturally aligned) on one NUMA node, cut into items. A zone is what its
// consumers allocate from: several kegs, tried in order, so a large-page keg can fall back
// to a small-page one when no large page is left (the seed's two kegs for 2 KiB network
// buffers), and a per-node keg serves each node's consumers (its NUMA support).
//
// Colouring: without it, items of a power-of-two size S sit on S-byte boundaries, so their
// first lines, the most used, fall on only 1/(S / line) of the cache's sets (2 KiB items on
// 64-byte lines: 1/32). With it, each item is padded by one line, so successive items start
// on successive lines ("each item is padded until it reaches a new color"); a slab must then
// be a large contiguous block for the colours to cycle (S / line items to see them all).
// A 4 KiB slab of 2 KiB items has no room for padding: colouring buys nothing there, and
// the seed says as much of per-slab colouring ("ignores naturally aligned allocations").
//
// Items are handed out in address order within a keg and are not freed (the workloads that
// use a zone allocate once, at setup); the zone says which keg served each item.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/platform.hpp"

namespace lockstep::alloc {

inline constexpr std::size_t kSmallPage = 4096;
inline constexpr std::size_t kLargePage = std::size_t{2} << 20;

struct KegSpec {
  NodeId node = 0;
  std::size_t slab_bytes = kSmallPage;
  std::size_t max_slabs = std::numeric_limits<std::size_t>::max();  // large pages left: fragmentation
  bool colour = false;
};

template <Platform P>
class Keg {
 public:
  Keg(std::size_t item_bytes, const KegSpec& spec) : item_bytes_(item_bytes), spec_(spec) {
    if (item_bytes == 0 || stride() > spec.slab_bytes)
      throw std::invalid_argument("keg: an item (with its colour's padding) must fit a slab");
  }
  ~Keg() {
    for (void* slab : slabs_) P::deallocate(slab, spec_.slab_bytes);
  }
  Keg(const Keg&) = delete;
  Keg& operator=(const Keg&) = delete;

  // Bytes from one item's start to the next: the item, plus a line when colouring.
  std::size_t stride() const { return item_bytes_ + (spec_.colour ? kCacheLineBytes : 0); }
  std::size_t items_per_slab() const { return spec_.slab_bytes / stride(); }
  const KegSpec& spec() const { return spec_; }
  std::size_t slabs() const { return slabs_.size(); }

  // The next item, or null when the keg may take no more slabs. `offset` is set to the
  // item's offset in its (naturally aligned) slab, which is what its colour depends on.
  void* alloc(std::size_t& offset) {
    if (next_ == items_per_slab() || slabs_.empty()) {
      if (slabs_.size() == spec_.max_slabs) return nullptr;
      slabs_.push_back(P::allocate(spec_.slab_bytes, spec_.slab_bytes, spec_.node));
      next_ = 0;
    }
    offset = next_++ * stride();
    return static_cast<std::byte*>(slabs_.back()) + offset;
  }

 private:
  std::size_t item_bytes_;
  KegSpec spec_;
  std::vector<void*> slabs_;
  std::size_t next_ = 0;  // items taken from the last slab
};

// An item and where it came from.
struct Item {
  void* ptr = nullptr;
  std::size_t keg = 0;     // index of the keg that served it
  std::size_t offset = 0;  // in its slab
};

template <Platform P>
class Zone {
 public:
  explicit Zone(std::size_t item_bytes) : item_bytes_(item_bytes) {}
  void add_keg(const KegSpec& spec) { kegs_.push_back(std::make_unique<Keg<P>>(item_bytes_, spec)); }
  const Keg<P>& keg(std::size_t i) const { return *kegs_.at(i); }
  std::size_t kegs() const { return kegs_.size(); }

  // An item for a consumer on `node`: from the first of that node's kegs with room, or, if
  // none has, the first of any node's. Throws when every keg is full.
  Item alloc(NodeId node) {
    for (const bool local : {true, false})
      for (std::size_t k = 0; k < kegs_.size(); ++k) {
        if (local != (kegs_[k]->spec().node == node)) continue;
        Item item;
        item.keg = k;
        if ((item.ptr = kegs_[k]->alloc(item.offset)) != nullptr) return item;
      }
    throw std::runtime_error("zone: every keg is full");
  }

 private:
  std::size_t item_bytes_;
  std::vector<std::unique_ptr<Keg<P>>> kegs_;
};

}  // namespace lockstep::alloc
