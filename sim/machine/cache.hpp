// One set-associative cache's tag array: which lines it holds, and which to evict.
//
// Every access of the machine model looks up one to three of these, and the simulated
// tag arrays of a large machine are megabytes (host cache misses), so a lookup should
// touch as few host cachelines as it can: a set is its tags (8 bytes a way, contiguous)
// followed by its ways' LRU stamps, so a 2-way L1 set is one host line and a 32-way L3 set
// is scanned in four. Starting a new execution must empty every cache in O(1) (exploration re-runs
// from scratch thousands of times a second), so a tag carries the generation it was
// written in, in its top bits: a way of an older generation is free, and comparing a tag
// with (generation, line) checks both at once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/host_pages.hpp"
#include "sim/host_prefetch.hpp"
#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

class Cache {
 public:
  // The host words a cache of `level` keeps its tags (and LRU stamps) in; throws
  // std::invalid_argument for a shape the model cannot hold.
  static std::size_t words_for(const CacheLevel& level);
  // `words` is words_for(level) words that outlive the cache: a machine's caches share one
  // block of huge pages (host_pages.hpp), since a lookup lands on a random set of megabytes
  // of tags, and with 4 KiB pages most would also miss the host's TLB.
  Cache(const CacheLevel& level, std::uint64_t* words);

  void clear();
  // True on a hit (and marks the line most recently used). Inline: every access of the
  // machine model makes one, most of them L1 hits.
  bool lookup(std::uint64_t line) {
    const std::size_t set = set_of(line);
    const int way = find(set, line);
    if (way < 0) return false;
    touch(set, static_cast<std::size_t>(way));
    return true;
  }
  bool contains(std::uint64_t line) const { return find(set_of(line), line) >= 0; }
  // Starts loading the host lines of `line`'s set (tags and stamps); changes nothing.
  void prefetch(std::uint64_t line) const {
    const std::uint64_t* set = tags(set_of(line));
    for (std::size_t word = 0; word < set_words_; word += kWordsPerHostLine) prefetch_host_line(set + word);
  }
  // Puts `line` in; returns the line it evicted, if any.
  std::optional<std::uint64_t> insert(std::uint64_t line);
  void invalidate(std::uint64_t line);
  double hit_ns() const { return hit_ns_; }

  // Line numbers (physical address / 64) fit below the generation bits.
  static constexpr int kLineBits = 52;
  static constexpr std::uint64_t kMaxLine = (std::uint64_t{1} << kLineBits) - 1;

 private:
  // Generations cycle through 0..kGenerations-1; the all-ones tag (generation
  // kGenerations) is a free way in every generation.
  static constexpr std::uint64_t kGenerations = (std::uint64_t{1} << (64 - kLineBits)) - 1;
  static constexpr std::uint64_t kNoLine = ~std::uint64_t{0};
  static constexpr std::size_t kWordsPerHostLine = 64 / sizeof(std::uint64_t);

  static std::size_t set_words_for(const CacheLevel& level);
  std::size_t set_of(std::uint64_t line) const { return static_cast<std::size_t>(line & (sets_ - 1)); }
  std::uint64_t tag_of(std::uint64_t line) const { return generation_ << kLineBits | line; }
  bool valid(std::uint64_t tag) const { return tag >> kLineBits == generation_; }
  // A set's tags (generation << kLineBits | line, or kNoLine), then with LRU its stamps.
  std::uint64_t* tags(std::size_t set) { return &words_[set * set_words_]; }
  const std::uint64_t* tags(std::size_t set) const { return &words_[set * set_words_]; }
  std::uint64_t* last_use(std::size_t set) { return tags(set) + ways_; }
  const std::uint64_t* last_use(std::size_t set) const { return tags(set) + ways_; }
  // The way of the set holding `line`, or -1.
  int find(std::size_t set, std::uint64_t line) const {
    const std::uint64_t* t = tags(set);
    const std::uint64_t tag = tag_of(line);
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (t[w] == tag) return static_cast<int>(w);
    return -1;
  }
  std::size_t victim(std::size_t set) const;  // of a full set
  void touch(std::size_t set, std::size_t way) {
    if (replacement_ == Replacement::plru) {
      touch_plru(set, way);
    } else {
      last_use(set)[way] = ++tick_;
    }
  }
  void touch_plru(std::size_t set, std::size_t way);

  std::uint64_t sets_ = 1;
  std::uint32_t ways_ = 1;
  double hit_ns_ = 1;
  Replacement replacement_ = Replacement::lru;
  std::size_t set_words_ = 1;  // ways, and as many stamps with LRU
  std::uint64_t* words_ = nullptr;  // set_words_ per set, not owned
  std::vector<std::uint64_t> plru_bits_;  // tree pseudo-LRU, one word per set
  std::uint64_t generation_ = 0;
  std::uint64_t tick_ = 0;
};

}  // namespace lockstep::sim::machine
