// The file probe's experiments, one file each. Every one creates its files in the probe's
// directory, runs trials on real threads until its deadline passes (or Ctrl-C), checks
// each trial once its threads have joined, and returns the counts.
#pragma once

#include <cstddef>

#include "native/fileio/probe_dir.hpp"
#include "native/fileio/probe_result.hpp"
#include "native/fileio/race.hpp"

namespace lockstep::native::fileio {

// Threads sharing one descriptor: enough that two of them are in read() at once on two
// CPUs while a third may be preempted between loading and storing the offset.
inline constexpr std::size_t kSharedThreads = 4;

// torn_reads.cpp: a writer alternately pwrite()s patterns A and B over [0, bytes), a
// reader pread()s the range and checks it holds one pattern only.
TornReadSize measure_torn_reads(const ProbeDir& dir, std::size_t bytes, Deadline deadline);

// interleaved_writes.cpp: two threads pwrite() A and B over one range at once; then two
// O_APPEND descriptors write() A and B to an empty file at once. Fills `out`'s counts.
void measure_interleaved_same_range(const ProbeDir& dir, InterleavedWrites& out, Deadline deadline);
void measure_interleaved_appends(const ProbeDir& dir, InterleavedWrites& out, Deadline deadline);

// shared_reads.cpp: kSharedThreads threads read() one descriptor from offset 0 to the end
// of a file of tagged records; every record should come back exactly once.
SharedReads measure_shared_reads(const ProbeDir& dir, Deadline deadline);

// shared_writes.cpp: kSharedThreads threads write() tagged records through one descriptor;
// every record should be in the file afterwards.
SharedWrites measure_shared_writes(const ProbeDir& dir, Deadline deadline);

// append_losses.cpp: kSharedThreads threads write() tagged records through their own
// O_APPEND descriptors; every record should be in the file, whole, afterwards.
AppendLosses measure_append_losses(const ProbeDir& dir, Deadline deadline);

}  // namespace lockstep::native::fileio
