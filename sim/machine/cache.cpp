#include "sim/machine/cache.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

std::size_t Cache::words_for(const CacheLevel& level) {
  const std::uint64_t lines = level.size_bytes / kLineBytes;
  if (level.ways == 0 || lines == 0 || lines % level.ways != 0)
    throw std::invalid_argument(fmt::format("cache {}: {} bytes do not divide into {} ways of {}-byte lines",
                                            level.name, level.size_bytes, level.ways, kLineBytes));
  const std::uint64_t sets = lines / level.ways;
  if (!std::has_single_bit(sets))
    throw std::invalid_argument(fmt::format("cache {}: {} sets is not a power of two", level.name, sets));
  if (level.replacement == Replacement::plru && (!std::has_single_bit(level.ways) || level.ways > 32))
    throw std::invalid_argument(fmt::format("cache {}: pseudo-LRU needs a power-of-two number of ways", level.name));
  return static_cast<std::size_t>(sets) * set_words_for(level);
}

// A set's tags, then with LRU as many stamps.
std::size_t Cache::set_words_for(const CacheLevel& level) {
  return level.replacement == Replacement::lru ? 2 * std::size_t{level.ways} : level.ways;
}

Cache::Cache(const CacheLevel& level, std::uint64_t* words)
    : ways_(level.ways), hit_ns_(level.hit_ns), replacement_(level.replacement), words_(words) {
  const std::size_t words_needed = words_for(level);
  set_words_ = set_words_for(level);
  sets_ = words_needed / set_words_;
  std::fill_n(words_, words_needed, 0);
  for (std::size_t set = 0; set < sets_; ++set) std::fill_n(tags(set), ways_, kNoLine);
  plru_bits_.assign(static_cast<std::size_t>(sets_), 0);
}

// A new generation: every way written before is free. When the generations run out, the
// tags are wiped once and counting starts over. Replacement state is left as it was.
void Cache::clear() {
  if (++generation_ < kGenerations) return;
  generation_ = 0;
  for (std::size_t set = 0; set < sets_; ++set) std::fill_n(tags(set), ways_, kNoLine);
}

// Tree pseudo-LRU: each internal node of a binary tree over the ways points away from the
// half used last; the victim is found by following the pointers.
void Cache::touch_plru(std::size_t set, std::size_t way) {
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

// The way to evict from a full set.
std::size_t Cache::victim(std::size_t set) const {
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
  const std::uint64_t* stamps = last_use(set);
  std::size_t oldest = 0;
  for (std::uint32_t w = 1; w < ways_; ++w)
    if (stamps[w] < stamps[oldest]) oldest = w;
  return oldest;
}

std::optional<std::uint64_t> Cache::insert(std::uint64_t line) {
  const std::size_t set = set_of(line);
  std::uint64_t* t = tags(set);
  const std::uint64_t tag = tag_of(line);
  // One pass finds the line or else the first free way (a miss fills that one).
  std::size_t free = ways_;
  for (std::uint32_t w = 0; w < ways_; ++w) {
    if (t[w] == tag) {
      touch(set, w);
      return std::nullopt;
    }
    if (free == ways_ && !valid(t[w])) free = w;
  }
  const std::size_t w = free < ways_ ? free : victim(set);
  std::optional<std::uint64_t> evicted;
  if (valid(t[w])) evicted = t[w] & kMaxLine;
  t[w] = tag;
  touch(set, w);
  return evicted;
}

void Cache::invalidate(std::uint64_t line) {
  const std::size_t set = set_of(line);
  if (const int way = find(set, line); way >= 0) tags(set)[way] = kNoLine;
}

}  // namespace lockstep::sim::machine
