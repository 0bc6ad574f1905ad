#include "native/fileio/probe_result.hpp"

namespace lockstep::native::fileio {

std::uint64_t ProbeResult::torn_read_trials() const {
  std::uint64_t n = 0;
  for (const TornReadSize& s : torn_reads) n += s.trials;
  return n;
}

std::uint64_t ProbeResult::torn_read_count() const {
  std::uint64_t n = 0;
  for (const TornReadSize& s : torn_reads) n += s.torn;
  return n;
}

std::uint64_t ProbeResult::trials() const {
  return torn_read_trials() + interleaved.same_range_trials + interleaved.append_trials + shared_reads.trials +
         shared_writes.trials + appends.trials;
}

}  // namespace lockstep::native::fileio
