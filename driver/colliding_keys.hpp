// `lockstep keys`' question put to the SMT checker (axiomatic/futex_keys.hpp): K distinct
// aligned futex addresses whose keys land in one bucket of a table design, found by Z3 and
// checked with the table's own hash. The command line parses and prints; this asks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lockstep::driver {

struct CollidingKeysRequest {
  std::string design;   // a named futex design (core/futex/futex_designs.hpp)
  bool shared = false;  // shared futex keys, or private ones
  std::uint64_t count = 16;
  std::uint64_t lo = 0;  // addresses in [lo, hi)
  std::uint64_t hi = 0;
  int cpus = 16;
  int nodes = 2;
  int threads = 0;  // the process's threads (the private table's size); 0: as many as cpus
};

struct CollidingKeys {
  std::string design_text;  // the design's fields in words
  std::vector<std::uint64_t> addresses;
  int bucket_table = 0;
  std::uint32_t bucket_index = 0;
  int tables = 1;
  std::uint32_t buckets_per_table = 0;
  int threads = 0;
  bool verified = false;  // every address's own hash lands in that bucket
  double solver_s = 0;
};

// Throws std::invalid_argument for a design that is not named, and the checker's errors (a
// range that holds too few addresses) as std::exception.
CollidingKeys find_colliding_keys(const CollidingKeysRequest& request);

// The JSON `lockstep keys --json` writes.
nlohmann::ordered_json colliding_keys_json(const CollidingKeysRequest& request, const CollidingKeys& found);

}  // namespace lockstep::driver
