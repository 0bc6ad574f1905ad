// Which of the modeled file policies could have produced what the file probe observed.
// The policies are docs/sources.md's (section 2: who protects the shared file offset; section
// 3: who protects the data), by the names the simulated model (core/fileio) gives them.
// A policy is inconsistent when the probe saw an anomaly the policy forbids; observing
// nothing rules out nothing, because finite trials never prove an anomaly impossible.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "native/fileio/probe_result.hpp"

namespace lockstep::native::fileio {

inline constexpr std::array<std::string_view, 5> kOffsetPolicies{"none", "inode-lock", "vnode-rwlock", "f-pos-lock",
                                                                 "foffset-lock"};
inline constexpr std::array<std::string_view, 5> kDataPolicies{"exclusive", "shared-read", "lockless-reads",
                                                               "page-locks", "range-locks"};

// Anomalies, each a count of occurrences.
struct Observations {
  std::uint64_t torn_reads_within_page = 0;  // torn preads of a range inside one page
  std::uint64_t torn_reads_across_pages = 0;
  std::uint64_t interleaved_writes = 0;  // two pwrites of one range left bytes of both
  std::uint64_t duplicate_reads = 0;     // shared descriptor: two reads returned the same bytes
  std::uint64_t skipped_reads = 0;       // shared descriptor: bytes no read returned
  std::uint64_t lost_writes = 0;         // shared descriptor: records written but not in the file
  std::uint64_t append_anomalies = 0;    // O_APPEND records lost, overwritten or interleaved
};

// The anomalies in a probe's result; a torn read is within a page when its range (which
// starts at offset 0) is at most page_bytes long.
Observations observations_of(const ProbeResult& result, std::size_t page_bytes);

struct RuledOut {
  std::string_view policy;
  std::string_view because;  // the anomaly observed, in words
};

struct Classification {
  std::vector<std::string_view> consistent;  // offset policies, then data policies, in table order
  std::vector<RuledOut> inconsistent;        // same order; the first anomaly that rules each out
  bool observed_any = false;
  std::string_view note;  // how to read the lists
};

Classification classify(const Observations& observed);

}  // namespace lockstep::native::fileio
