// A random cyclic order of n lines without storing it: the i-th line of the order is a keyed
// bijection of i on [0, n) (a four-round Feistel network on the least even number of bits
// that holds n, walked again while it lands past n). Reading lines in this order, over and
// over, is what a pointer chase through a random cycle does (native/probes/chase_cycle.cpp):
// every line once per n reads, in the same order each time. That pattern differs from
// independent random reads where a cache holds part of the buffer: a least-recently-used
// cache smaller than the cycle misses on every read of it, where random reads hit in
// proportion to the part held.
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>

#include "sim/rng.hpp"

namespace lockstep::sim {

class LineCycle {
 public:
  LineCycle(std::uint64_t lines, std::uint64_t seed) : lines_(lines), seed_(seed) {
    if (lines == 0) throw std::invalid_argument("a line cycle needs one line at least");
    const int bits = lines <= 1 ? 2 : std::bit_width(lines - 1);
    half_bits_ = (bits + 1) / 2;
    mask_ = (std::uint64_t{1} << half_bits_) - 1;
  }

  // The line read at step `i` (any i: the order repeats every `lines` steps).
  std::uint64_t at(std::uint64_t i) const {
    std::uint64_t x = i % lines_;
    // Cycle walking: the network permutes [0, 4^half_bits), which is under 4 n, so a walk
    // takes fewer than four rounds on average and always ends inside [0, n).
    do x = permute(x);
    while (x >= lines_);
    return x;
  }

 private:
  std::uint64_t permute(std::uint64_t x) const {
    std::uint64_t left = x >> half_bits_;
    std::uint64_t right = x & mask_;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t next = left ^ (Rng::key(seed_, round, right) & mask_);
      left = right;
      right = next;
    }
    return left << half_bits_ | right;
  }

  std::uint64_t lines_;
  std::uint64_t seed_;
  int half_bits_ = 1;
  std::uint64_t mask_ = 1;
};

}  // namespace lockstep::sim
