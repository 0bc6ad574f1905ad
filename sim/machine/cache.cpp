#include "sim/machine/cache.hpp"

#include <bit>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

Cache::Cache(const CacheLevel& level) : ways_(level.ways), hit_ns_(level.hit_ns), replacement_(level.replacement) {
  const std::uint64_t lines = level.size_bytes / kLineBytes;
  if (level.ways == 0 || lines == 0 || lines % level.ways != 0)
    throw std::invalid_argument(fmt::format("cache {}: {} bytes do not divide into {} ways of {}-byte lines",
                                            level.name, level.size_bytes, level.ways, kLineBytes));
  sets_ = lines / level.ways;
  if (!std::has_single_bit(sets_))
    throw std::invalid_argument(fmt::format("cache {}: {} sets is not a power of two", level.name, sets_));
  if (replacement_ == Replacement::plru && (!std::has_single_bit(ways_) || ways_ > 32))
    throw std::invalid_argument(fmt::format("cache {}: pseudo-LRU needs a power-of-two number of ways", level.name));
  ways_array_.resize(static_cast<std::size_t>(sets_) * ways_);
  plru_bits_.assign(static_cast<std::size_t>(sets_), 0);
}

// A new generation: every way written before is free. When the generations run out, the
// tags are wiped once and counting starts over. Replacement state is left as it was.
void Cache::clear() {
  if (++generation_ < kGenerations) return;
  generation_ = 0;
  for (Way& way : ways_array_) way.tag = kNoLine;
}

const Cache::Way* Cache::find(std::uint64_t line) const {
  const Way* set = &ways_array_[set_of(line) * ways_];
  const std::uint64_t tag = tag_of(line);
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (set[w].tag == tag) return &set[w];
  return nullptr;
}

bool Cache::lookup(std::uint64_t line) {
  Way* way = find(line);
  if (way == nullptr) return false;
  const std::size_t set = set_of(line);
  touch(set, static_cast<std::size_t>(way - set_ways(set)));
  return true;
}

// Tree pseudo-LRU: each internal node of a binary tree over the ways points away from the
// half used last; the victim is found by following the pointers.
void Cache::touch(std::size_t set, std::size_t way) {
  if (replacement_ != Replacement::plru) {
    set_ways(set)[way].last_use = ++tick_;
    return;
  }
  std::uint64_t& bits = plru_bits_[set];
  std::size_t node = 1;
  for (std::uint32_t span = ways_ / 2; span >= 1; span /= 2) {
    const bool right = (way & span) != 0;
    if (right) {
      bits &= ~(std::uint64_t{1} << node);
    } else {
      bits |= std::uint64_t{1} << node;
    }
    node = node * 2 + (right ? 1 : 0);
    if (span == 1) break;
  }
}

std::size_t Cache::victim(std::size_t set) const {
  const Way* ways = &ways_array_[set * ways_];
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (!valid(ways[w])) return w;
  if (replacement_ == Replacement::plru) {
    const std::uint64_t bits = plru_bits_[set];
    std::size_t node = 1;
    std::size_t way = 0;
    for (std::uint32_t span = ways_ / 2; span >= 1; span /= 2) {
      const bool right = (bits >> node & 1) != 0;
      if (right) way |= span;
      node = node * 2 + (right ? 1 : 0);
      if (span == 1) break;
    }
    return way;
  }
  std::size_t oldest = 0;
  for (std::uint32_t w = 1; w < ways_; ++w)
    if (ways[w].last_use < ways[oldest].last_use) oldest = w;
  return oldest;
}

std::optional<std::uint64_t> Cache::insert(std::uint64_t line) {
  const std::size_t set = set_of(line);
  if (Way* way = find(line); way != nullptr) {
    touch(set, static_cast<std::size_t>(way - set_ways(set)));
    return std::nullopt;
  }
  const std::size_t w = victim(set);
  Way& slot = set_ways(set)[w];
  std::optional<std::uint64_t> evicted;
  if (valid(slot)) evicted = slot.tag & kMaxLine;
  slot.tag = tag_of(line);
  touch(set, w);
  return evicted;
}

void Cache::invalidate(std::uint64_t line) {
  if (Way* way = find(line); way != nullptr) way->tag = kNoLine;
}

}  // namespace lockstep::sim::machine
