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

Cache::Way* Cache::find(std::uint64_t line) {
  Way* set = &ways_array_[set_of(line) * ways_];
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (set[w].generation == generation_ && set[w].line == line) return &set[w];
  return nullptr;
}

const Cache::Way* Cache::find(std::uint64_t line) const { return const_cast<Cache*>(this)->find(line); }

bool Cache::contains(std::uint64_t line) const { return find(line) != nullptr; }

bool Cache::lookup(std::uint64_t line) {
  Way* way = find(line);
  if (way == nullptr) return false;
  const std::size_t set = set_of(line);
  touch(set, static_cast<std::size_t>(way - &ways_array_[set * ways_]));
  return true;
}

// Tree pseudo-LRU: each internal node of a binary tree over the ways points away from the
// half used last; the victim is found by following the pointers.
void Cache::touch(std::size_t set, std::size_t way) {
  ways_array_[set * ways_ + way].last_use = ++tick_;
  if (replacement_ != Replacement::plru) return;
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

std::size_t Cache::victim(std::size_t set) {
  const Way* ways = &ways_array_[set * ways_];
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (ways[w].generation != generation_) return w;
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
  if (Way* way = find(line); way != nullptr) {
    const std::size_t set = set_of(line);
    touch(set, static_cast<std::size_t>(way - &ways_array_[set * ways_]));
    return std::nullopt;
  }
  const std::size_t set = set_of(line);
  const std::size_t w = victim(set);
  Way& slot = ways_array_[set * ways_ + w];
  std::optional<std::uint64_t> evicted;
  if (slot.generation == generation_) evicted = slot.line;
  slot.line = line;
  slot.generation = generation_;
  touch(set, w);
  return evicted;
}

void Cache::invalidate(std::uint64_t line) {
  if (Way* way = find(line); way != nullptr) way->generation = 0;
}

}  // namespace lockstep::sim::machine
