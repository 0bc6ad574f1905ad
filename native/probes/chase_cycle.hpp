// A pointer chase's route: a random Hamiltonian cycle over the cache lines of a buffer.
// Each line's first word holds the address of the next line of the cycle, so a chase is a
// chain of dependent loads (each address comes from the previous load) that visits every
// line once per lap in an order neither the prefetchers nor page locality can follow:
// consecutive loads land on random lines of random pages.
#pragma once

#include <cstdint>
#include <functional>

namespace lockstep::native::probes {

inline constexpr std::uint64_t kChaseLineBytes = 64;

// Writes the cycle over the first `bytes` of `base` (at least one line; a multiple of
// kChaseLineBytes) and returns the line it starts at. The order is a uniformly random
// permutation (Fisher-Yates over mt19937_64 from `seed`), so the same seed gives the same
// route. `keep_going` (may be empty) is polled every 64 Ki lines; when it returns false the
// cycle is left unfinished and nullptr returned (a large buffer takes a noticeable fraction
// of a second).
void* build_chase_cycle(char* base, std::uint64_t bytes, std::uint64_t seed,
                        const std::function<bool()>& keep_going = {});

// Follows `loads` links from `start` and returns where it ended.
inline void* chase(void* start, std::uint64_t loads) {
  void* p = start;
  for (std::uint64_t i = 0; i < loads; ++i) p = *static_cast<void* const*>(p);
  return p;
}

}  // namespace lockstep::native::probes
