// Worst-case futex keys (docs/futex.md, "Colliding keys"): distinct, aligned user addresses
// whose futex keys land in one bucket of a table design, found by Z3 over bit-vectors. The
// hash is encoded as the kernel computes it (core/futex/futex_key.hpp: the key's words as
// Linux builds them for private and shared futexes, jhash2 seeded by the page offset, or
// the Fibonacci hash), the bucket as the table picks it (the low bits; per-node tables take
// the node from the bits above). Every answer is then checked by computing the real hash
// with the simulator's own code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/futex/colliding_keys.hpp"
#include "core/futex/futex_config.hpp"
#include "core/futex/futex_sizing.hpp"

namespace lockstep::axiomatic {

struct KeyQuery {
  futex::FutexConfig config;
  futex::FutexMachine machine;  // the table's size depends on it
  std::uint64_t count = 16;
  std::uint64_t lo = 0x7f0000000000;  // [lo, hi): a typical mmap area
  std::uint64_t hi = 0x7f0000100000;
  std::uint64_t align = 4;  // futex words are 32-bit aligned
};

struct Bucket {
  int table = 0;
  std::uint32_t index = 0;
  friend bool operator==(const Bucket&, const Bucket&) = default;
};

struct KeyAnswer {
  std::vector<std::uint64_t> addresses;  // all in one bucket
  Bucket bucket;
  std::uint32_t buckets_per_table = 0;
  int tables = 1;
  bool verified = false;  // every address's real hash lands in `bucket`
  std::uint64_t queries = 0;
  double seconds = 0;
};

// The bucket `address` hashes to under the design, with the table's own code.
Bucket real_bucket(const futex::FutexConfig& config, const futex::FutexMachine& machine, std::uint64_t address);

// Throws std::runtime_error when the range holds fewer than `count` such addresses (the
// solver proves there are no more) or the solver gives up.
KeyAnswer colliding_keys(const KeyQuery& q);

// The finder workloads use (core/futex/colliding_keys.hpp): colliding_keys on the request,
// refusing an answer the table's own hash does not confirm (std::runtime_error). Answers are
// remembered for the life of the process (thread-safe): a sweep, and the runner's traced
// re-run of each execution, ask the same question again.
std::vector<std::uint64_t> find_colliding_keys(const futex::CollidingKeyRequest& request);

}  // namespace lockstep::axiomatic
