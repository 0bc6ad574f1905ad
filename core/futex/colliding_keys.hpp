// Worst-case keys for a workload: a callback that returns distinct, aligned addresses in
// [lo, hi) whose futex keys all land in one bucket of a table design. The core only names the
// question; the answer comes from the scenario layer, which asks Z3 (axiomatic/futex_keys.hpp)
// and checks every answer with the table's own hash. A workload calls it at setup, once it
// knows where its memory is: simulated addresses in the simulator, real ones natively.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/futex/futex_config.hpp"
#include "core/futex/futex_sizing.hpp"

namespace lockstep::futex {

// Whose futex words a workload uses: its own array (the default, spread over buckets by the
// hash) or addresses chosen to collide.
enum class KeyChoice : std::uint8_t { spread, colliding };

struct CollidingKeyRequest {
  FutexConfig config;
  FutexMachine machine;  // as the table the keys are aimed at was sized
  std::uint64_t lo = 0;  // [lo, hi): the memory the workload has for the words
  std::uint64_t hi = 0;
  std::uint64_t count = 0;
  std::uint64_t align = 4;
};

using CollidingKeyFinder = std::function<std::vector<std::uint64_t>(const CollidingKeyRequest&)>;

// Pages of memory to offer the finder for `count` keys on a table of `buckets` buckets: a 4 KiB
// page has 1024 aligned words and each lands in a given bucket with probability 1/buckets, so
// twice the expected need, plus one page, at most `cap`.
inline std::uint64_t colliding_region_pages(std::uint64_t count, std::uint64_t buckets, std::uint64_t cap = 4096) {
  const std::uint64_t words_per_page = 1024;
  const std::uint64_t expected = (count * buckets + words_per_page - 1) / words_per_page;
  return std::min(cap, 2 * expected + 1);
}

}  // namespace lockstep::futex
