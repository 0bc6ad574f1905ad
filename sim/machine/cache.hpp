// One set-associative cache's tag array: which lines it holds, and which to evict.
//
// Every access of the machine model looks up one to three of these, and the simulated
// tag arrays of a large machine are megabytes (host cache misses), so a lookup should
// touch one host cacheline where it can: a set's ways are contiguous, each a tag and its
// LRU stamp. Starting a new execution must empty every cache in O(1) (exploration re-runs
// from scratch thousands of times a second), so a tag carries the generation it was
// written in, in its top bits: a way of an older generation is free, and comparing a tag
// with (generation, line) checks both at once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

class Cache {
 public:
  explicit Cache(const CacheLevel& level);

  void clear();
  // True on a hit (and marks the line most recently used).
  bool lookup(std::uint64_t line);
  bool contains(std::uint64_t line) const { return find(line) != nullptr; }
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

  struct Way {
    std::uint64_t tag = kNoLine;  // generation << kLineBits | line
    std::uint64_t last_use = 0;   // LRU
  };
  std::size_t set_of(std::uint64_t line) const { return static_cast<std::size_t>(line & (sets_ - 1)); }
  std::uint64_t tag_of(std::uint64_t line) const { return generation_ << kLineBits | line; }
  bool valid(const Way& way) const { return way.tag >> kLineBits == generation_; }
  Way* set_ways(std::size_t set) { return &ways_array_[set * ways_]; }
  const Way* find(std::uint64_t line) const;
  Way* find(std::uint64_t line) { return const_cast<Way*>(static_cast<const Cache*>(this)->find(line)); }
  std::size_t victim(std::size_t set) const;
  void touch(std::size_t set, std::size_t way);

  std::uint64_t sets_ = 1;
  std::uint32_t ways_ = 1;
  double hit_ns_ = 1;
  Replacement replacement_ = Replacement::lru;
  std::vector<Way> ways_array_;
  std::vector<std::uint64_t> plru_bits_;  // tree pseudo-LRU, one word per set
  std::uint64_t generation_ = 0;
  std::uint64_t tick_ = 0;
};

}  // namespace lockstep::sim::machine
