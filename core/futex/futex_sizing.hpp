// How many buckets each table variant has (docs/sources.md section 1).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

#include "core/futex/futex_config.hpp"

namespace lockstep::futex {

// What the sizing rules look at.
struct FutexMachine {
  int cpus = 1;     // num_possible_cpus()
  int nodes = 1;    // nr_node_ids
  int threads = 1;  // the process's threads (the private table's input)
};

inline std::uint32_t roundup_pow_of_two(std::uint64_t n) {
  return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(n, 1)));
}

// The global table of 3.14+: 256 buckets per possible CPU, rounded up to a power of two.
inline std::uint32_t global_buckets(const FutexMachine& m) { return roundup_pow_of_two(256ULL * m.cpus); }

// Buckets in each table, and how many tables.
struct TableShape {
  std::uint32_t buckets_per_table = 256;
  int tables = 1;
};

inline TableShape table_shape(Sizing sizing, const FutexMachine& m) {
  if (m.cpus < 1 || m.nodes < 1 || m.threads < 1)
    throw std::invalid_argument("futex table: cpus, nodes and threads must be positive");
  switch (sizing) {
    case Sizing::global_256:
      return {256, 1};  // before 3.14
    case Sizing::per_cpu:
      return {global_buckets(m), 1};
    case Sizing::per_node:  // FUTEX2_NUMA: roundup_pow_of_two(max(4, 256 * ncpus / nnodes)) on each node
      return {roundup_pow_of_two(std::max<std::uint64_t>(4, 256ULL * m.cpus / m.nodes)), m.nodes};
    case Sizing::process_private: {  // 6.16: clamp(roundup_pow_of_two(4 * min(threads, cpus)), 16, global size)
      const std::uint32_t wanted = roundup_pow_of_two(4ULL * std::min(m.threads, m.cpus));
      return {std::clamp<std::uint32_t>(wanted, 16, global_buckets(m)), 1};
    }
  }
  throw std::logic_error("unknown futex table sizing");
}

}  // namespace lockstep::futex
