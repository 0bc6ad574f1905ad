// One set-associative cache's tag array: which lines it holds, and which to evict. Contents
// are stamped with a generation so that starting a new execution empties every cache in
// O(1) (exploration re-runs from scratch thousands of times a second).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

class Cache {
 public:
  explicit Cache(const CacheLevel& level);

  void clear() { ++generation_; }
  // True on a hit (and marks the line most recently used).
  bool lookup(std::uint64_t line);
  bool contains(std::uint64_t line) const;
  // Puts `line` in; returns the line it evicted, if any.
  std::optional<std::uint64_t> insert(std::uint64_t line);
  void invalidate(std::uint64_t line);
  double hit_ns() const { return hit_ns_; }

 private:
  struct Way {
    std::uint64_t line = 0;
    std::uint64_t generation = 0;  // valid only when equal to the cache's generation
    std::uint64_t last_use = 0;    // LRU
  };
  std::size_t set_of(std::uint64_t line) const { return static_cast<std::size_t>(line & (sets_ - 1)); }
  Way* find(std::uint64_t line);
  const Way* find(std::uint64_t line) const;
  std::size_t victim(std::size_t set);
  void touch(std::size_t set, std::size_t way);

  std::uint64_t sets_ = 1;
  std::uint32_t ways_ = 1;
  double hit_ns_ = 1;
  Replacement replacement_ = Replacement::lru;
  std::vector<Way> ways_array_;
  std::vector<std::uint64_t> plru_bits_;  // tree pseudo-LRU, one word per set
  std::uint64_t generation_ = 1;
  std::uint64_t tick_ = 0;
};

}  // namespace lockstep::sim::machine
