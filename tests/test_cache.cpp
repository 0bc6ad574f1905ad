// The tag array of one cache (sim/machine/cache.hpp) against a plain reference model: a
// vector of ways per set, no generations, no summaries, no shared block of words. Every
// shape the presets use is covered, narrow sets (scanned) and wide ones (32 to 48 ways,
// looked up through their summaries), LRU and pseudo-LRU, across many executions' clears.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "sim/machine/cache.hpp"

using namespace lockstep::sim::machine;

namespace {

// What a cache of `sets` x `ways` does, written the obvious way.
class ReferenceCache {
 public:
  ReferenceCache(std::size_t sets, std::uint32_t ways, Replacement replacement)
      : sets_(sets), ways_(ways), replacement_(replacement), line_(sets * ways), stamp_(sets * ways), plru_(sets) {
    clear();
  }
  void clear() { std::fill(line_.begin(), line_.end(), std::nullopt); }
  std::optional<std::size_t> way_of(std::uint64_t line) const {
    const std::size_t set = line % sets_;
    for (std::size_t w = 0; w < ways_; ++w)
      if (line_[set * ways_ + w] == line) return w;
    return std::nullopt;
  }
  bool lookup(std::uint64_t line) {
    const auto w = way_of(line);
    if (w) touch(line % sets_, *w);
    return w.has_value();
  }
  std::optional<std::uint64_t> insert(std::uint64_t line) {
    const std::size_t set = line % sets_;
    if (const auto w = way_of(line)) {
      touch(set, *w);
      return std::nullopt;
    }
    std::size_t w = 0;
    while (w < ways_ && line_[set * ways_ + w]) ++w;
    if (w == ways_) w = victim(set);
    const std::optional<std::uint64_t> evicted = line_[set * ways_ + w];
    line_[set * ways_ + w] = line;
    touch(set, w);
    return evicted;
  }
  void invalidate(std::uint64_t line) {
    if (const auto w = way_of(line)) line_[(line % sets_) * ways_ + *w] = std::nullopt;
  }

 private:
  void touch(std::size_t set, std::size_t way) {
    stamp_[set * ways_ + way] = ++tick_;
    // Tree pseudo-LRU: every node on the way's path points to the other half.
    std::size_t node = 1;
    for (std::uint32_t span = ways_ / 2; span >= 1; span /= 2) {
      const bool right = (way & span) != 0;
      if (right) {
        plru_[set] &= ~(std::uint64_t{1} << node);
      } else {
        plru_[set] |= std::uint64_t{1} << node;
      }
      node = 2 * node + (right ? 1 : 0);
    }
  }
  std::size_t victim(std::size_t set) const {
    if (replacement_ == Replacement::lru) {
      std::size_t oldest = 0;
      for (std::size_t w = 1; w < ways_; ++w)
        if (stamp_[set * ways_ + w] < stamp_[set * ways_ + oldest]) oldest = w;
      return oldest;
    }
    std::size_t node = 1;
    std::size_t way = 0;
    for (std::uint32_t span = ways_ / 2; span >= 1; span /= 2) {
      const bool right = (plru_[set] >> node & 1) != 0;
      if (right) way |= span;
      node = 2 * node + (right ? 1 : 0);
    }
    return way;
  }

  std::size_t sets_;
  std::uint32_t ways_;
  Replacement replacement_;
  std::vector<std::optional<std::uint64_t>> line_;
  std::vector<std::uint64_t> stamp_;
  std::vector<std::uint64_t> plru_;
  std::uint64_t tick_ = 0;
};

// Random lookups, inserts and invalidations over a few sets' worth of lines (so sets fill
// and evict), with a clear now and then, each answer checked against the reference.
void check_against_reference(std::uint32_t ways, Replacement replacement, int executions, int ops_per_execution) {
  constexpr std::size_t kSets = 4;
  const CacheLevel level{"L", kSets * ways * kLineBytes, ways, 1.0, CacheScope::core, replacement};
  std::vector<std::uint64_t> words(Cache::words_for(level));
  Cache cache(level, words.data());
  ReferenceCache reference(kSets, ways, replacement);
  std::mt19937_64 rng(ways * 7 + static_cast<unsigned>(replacement));
  // Lines far apart too, so tags differ in high bits (and some share a fingerprint).
  const std::uint64_t spread[] = {0, 1, std::uint64_t{1} << 20, std::uint64_t{1} << 40,
                                  Cache::kMaxLine - 3 * kSets * ways};
  for (int e = 0; e < executions; ++e) {
    cache.clear();
    reference.clear();
    for (int i = 0; i < ops_per_execution; ++i) {
      const std::uint64_t line = spread[rng() % 5] + rng() % (3 * kSets * ways);
      switch (rng() % 8) {
        case 0:
          cache.invalidate(line);
          reference.invalidate(line);
          break;
        case 1:
        case 2: {
          const bool hit = cache.lookup(line);
          REQUIRE(hit == reference.lookup(line));
          break;
        }
        case 3:
          REQUIRE(cache.contains(line) == reference.way_of(line).has_value());
          break;
        default: {
          cache.prefetch(line);
          const std::optional<std::uint64_t> evicted = cache.insert(line);
          REQUIRE(evicted == reference.insert(line));
          break;
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("narrow sets answer as the reference cache does", "[machine][cache]") {
  for (std::uint32_t ways : {1u, 2u, 8u}) check_against_reference(ways, Replacement::lru, 20, 2000);
  for (std::uint32_t ways : {2u, 8u}) check_against_reference(ways, Replacement::plru, 20, 2000);
}

TEST_CASE("wide sets, some looked up through their summaries, answer as the reference cache does", "[machine][cache]") {
  // 16 ways are scanned (the presets' L2s and nehalem-2s's L3); 32 and 45 are barcelona's
  // and xeon-e7-16s's L3s; 48 is the widest set a summary holds, and 64 is scanned again.
  for (std::uint32_t ways : {16u, 32u, 45u, 48u, 64u}) check_against_reference(ways, Replacement::lru, 20, 4000);
  for (std::uint32_t ways : {16u, 32u}) check_against_reference(ways, Replacement::plru, 20, 4000);
}

TEST_CASE("a cache is empty after each clear, also when its generations run out", "[machine][cache]") {
  // Clears outnumber the generations a tag (or summary) can tell apart, so the arrays are
  // wiped and counting starts over at least once; a line left from any earlier execution
  // must never hit.
  for (std::uint32_t ways : {2u, 32u}) {
    const CacheLevel level{"L", std::uint64_t{8} * ways * kLineBytes, ways, 1.0, CacheScope::core, Replacement::lru};
    std::vector<std::uint64_t> words(Cache::words_for(level));
    Cache cache(level, words.data());
    for (std::uint64_t execution = 0; execution < 9000; ++execution) {
      cache.clear();
      REQUIRE_FALSE(cache.contains(execution));
      if (execution > 0) REQUIRE_FALSE(cache.contains(execution - 1));
      REQUIRE_FALSE(cache.insert(execution + 1));
      REQUIRE(cache.contains(execution + 1));
    }
  }
}
