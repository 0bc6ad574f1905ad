// What the file probe measured: per experiment, how many chances an anomaly had (trials)
// and how many times it showed. Plain counts; the classification and the outputs read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::native::fileio {

// pread racing pwrite over one whole range of `bytes`: a trial is one pread.
struct TornReadSize {
  std::size_t bytes = 0;
  std::uint64_t trials = 0;
  std::uint64_t torn = 0;  // reads holding bytes of both patterns (or of neither)
};

// Two writers of one range at once: a trial is one pair of writes.
struct InterleavedWrites {
  std::size_t bytes = 0;
  std::uint64_t same_range_trials = 0;  // two pwrite()s of [0, bytes)
  std::uint64_t same_range_interleaved = 0;
  std::uint64_t append_trials = 0;       // two O_APPEND write()s of `bytes` each, to an empty file
  std::uint64_t append_interleaved = 0;  // a record's range holds bytes of both writes
  std::uint64_t append_lost = 0;         // the file is not two records long
};

// Threads read()ing one shared descriptor from offset 0 to the end: a trial is one read.
struct SharedReads {
  std::size_t record_bytes = 0;
  std::uint64_t trials = 0;
  std::uint64_t duplicates = 0;  // reads that returned a record another read had returned
  std::uint64_t skipped = 0;     // records no read returned, and reads that returned no whole record
};

// Threads write()ing records through one shared descriptor: a trial is one write.
struct SharedWrites {
  std::size_t record_bytes = 0;
  std::uint64_t trials = 0;
  std::uint64_t lost = 0;  // records written but not in the file
};

// Threads appending records through their own O_APPEND descriptors: a trial is one write.
struct AppendLosses {
  std::size_t record_bytes = 0;
  std::uint64_t trials = 0;
  std::uint64_t lost = 0;         // records written but not in the file
  std::uint64_t overwritten = 0;  // record-sized slots holding parts of two records
};

struct ProbeResult {
  std::string path;
  std::string filesystem;
  double seconds = 0;  // the time the probe was given
  double elapsed_s = 0;
  bool interrupted = false;
  std::vector<TornReadSize> torn_reads;
  InterleavedWrites interleaved;
  SharedReads shared_reads;
  SharedWrites shared_writes;
  AppendLosses appends;

  std::uint64_t torn_read_trials() const;
  std::uint64_t torn_read_count() const;
  std::uint64_t trials() const;  // of every experiment
};

}  // namespace lockstep::native::fileio
