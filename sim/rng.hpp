// The run's only source of randomness: xoshiro256** (Blackman and Vigna), seeded through
// splitmix64. Fully specified, so the same seed gives the same numbers on every host and
// standard library (std::uniform_int_distribution does not promise that).
#pragma once

#include <cstdint>

namespace lockstep::sim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) { reseed(seed); }

  void reseed(std::uint64_t seed) {
    for (auto& word : state_) word = splitmix(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift with rejection).
  std::uint64_t below(std::uint64_t bound) {
    for (;;) {
      const Wide m = static_cast<Wide>(next()) * bound;
      const auto low = static_cast<std::uint64_t>(m);
      if (low >= bound || low >= (-bound) % bound) return static_cast<std::uint64_t>(m >> 64);
    }
  }

  // The `n`-th key of `stream` under `seed`: two rounds of splitmix64's finalizer, so keys
  // of neighbouring streams and counts share no visible pattern. Stateless: what it returns
  // does not depend on which keys were asked for before.
  static std::uint64_t key(std::uint64_t seed, std::uint64_t stream, std::uint64_t n) {
    std::uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    x = splitmix(x) ^ (n * 0x9e3779b97f4a7c15ULL);
    return splitmix(x);
  }

  // A seed for sub-stream `index` of `seed`: executions of one run draw independent
  // schedules, whatever order (or worker) runs them.
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t x = seed ^ (index * 0x9e3779b97f4a7c15ULL);
    return splitmix(x);
  }

 private:
  __extension__ using Wide = unsigned __int128;
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t state_[4]{};
};

}  // namespace lockstep::sim
