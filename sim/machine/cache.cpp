#include "sim/machine/cache.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::sim::machine {

std::size_t Cache::sets_for(const CacheLevel& level) {
  const std::uint64_t lines = level.size_bytes / kLineBytes;
  if (level.ways == 0 || lines == 0 || lines % level.ways != 0)
    throw std::invalid_argument(fmt::format("cache {}: {} bytes do not divide into {} ways of {}-byte lines",
                                            level.name, level.size_bytes, level.ways, kLineBytes));
  const std::uint64_t sets = lines / level.ways;
  if (!std::has_single_bit(sets))
    throw std::invalid_argument(fmt::format("cache {}: {} sets is not a power of two", level.name, sets));
  if (level.replacement == Replacement::plru && (!std::has_single_bit(level.ways) || level.ways > 32))
    throw std::invalid_argument(fmt::format("cache {}: pseudo-LRU needs a power-of-two number of ways", level.name));
  return static_cast<std::size_t>(sets);
}

// The sets' tags and stamps, then (wide sets) their summaries, each part whole host lines.
std::size_t Cache::words_for(const CacheLevel& level) {
  const std::size_t sets = sets_for(level);
  return round_to_host_lines(sets * set_words_for(level)) + round_to_host_lines(sets * summary_words_for(level));
}

// A set's tags, then with LRU as many stamps.
std::size_t Cache::set_words_for(const CacheLevel& level) {
  return level.replacement == Replacement::lru ? 2 * std::size_t{level.ways} : level.ways;
}

// One host line: the valid word, then a fingerprint byte per way (compared sixteen at a
// time, so up to 48 bytes are read).
std::size_t Cache::summary_words_for(const CacheLevel& level) {
  static_assert(1 + (kSummaryMaxWays + 15) / 16 * 16 / sizeof(std::uint64_t) <= kWordsPerHostLine);
  return level.ways >= kSummaryMinWays && level.ways <= kSummaryMaxWays ? kWordsPerHostLine : 0;
}

Cache::Cache(const CacheLevel& level, std::uint64_t* words)
    : sets_(sets_for(level)),
      ways_(level.ways),
      hit_ns_(level.hit_ns),
      replacement_(level.replacement),
      set_words_(set_words_for(level)),
      words_(words),
      summary_words_(summary_words_for(level)) {
  const bool interleaved = summary_words_ > 0 && replacement_ == Replacement::lru;
  way_stride_ = interleaved ? 2 : 1;
  stamp_offset_ = interleaved ? 1 : ways_;
  std::fill_n(words_, words_for(level), 0);  // summaries: generation 0, no valid way
  for (std::size_t set = 0; set < sets_; ++set)
    for (std::size_t way = 0; way < ways_; ++way) tag_at(set, way) = kNoLine;
  if (summary_words_ > 0) summaries_ = words_ + round_to_host_lines(sets_ * set_words_);
  plru_bits_.assign(static_cast<std::size_t>(sets_), 0);
}

// A new generation: every way written before is free. When the generations run out, the
// tags are wiped once and counting starts over. Replacement state is left as it was.
void Cache::clear() {
  if (++generation_ < kGenerations) return;
  generation_ = 0;
  for (std::size_t set = 0; set < sets_; ++set) {
    for (std::size_t way = 0; way < ways_; ++way) tag_at(set, way) = kNoLine;
    if (summarized()) set_valid_ways(summary(set), 0);
  }
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
  std::size_t oldest = 0;
  for (std::uint32_t w = 1; w < ways_; ++w)
    if (stamp_at(set, w) < stamp_at(set, oldest)) oldest = w;
  return oldest;
}

std::optional<std::uint64_t> Cache::insert(std::uint64_t line) {
  const std::size_t set = set_of(line);
  if (summarized()) return insert_summarized(set, line);
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

// The same choice of way as the scan above (the first free one, else the victim), with the
// free ways read from the summary.
std::optional<std::uint64_t> Cache::insert_summarized(std::size_t set, std::uint64_t line) {
  if (const int way = find(set, line); way >= 0) {
    touch(set, static_cast<std::size_t>(way));
    return std::nullopt;
  }
  std::uint64_t* s = summary(set);
  const std::uint64_t held = valid_ways(s);
  const std::uint64_t free = ~held & ((std::uint64_t{1} << ways_) - 1);
  const std::size_t w = free != 0 ? static_cast<std::size_t>(std::countr_zero(free)) : victim(set);
  std::optional<std::uint64_t> evicted;
  if ((held >> w & 1) != 0) evicted = tag_at(set, w) & kMaxLine;
  tag_at(set, w) = tag_of(line);
  fingerprints(s)[w] = fingerprint(line);
  set_valid_ways(s, held | std::uint64_t{1} << w);
  touch(set, w);
  return evicted;
}

void Cache::invalidate(std::uint64_t line) {
  const std::size_t set = set_of(line);
  const int way = find(set, line);
  if (way < 0) return;
  if (summarized()) {
    // The tag stays, stale: only valid ways' tags are compared.
    std::uint64_t* s = summary(set);
    set_valid_ways(s, valid_ways(s) & ~(std::uint64_t{1} << way));
    return;
  }
  tag_at(set, static_cast<std::size_t>(way)) = kNoLine;
}

}  // namespace lockstep::sim::machine
