#include <fcntl.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "native/fileio/experiments.hpp"
#include "native/fileio/probe_io.hpp"
#include "native/fileio/record_writer.hpp"
#include "native/fileio/records.hpp"

namespace lockstep::native::fileio {

namespace {

// Not a divisor of the page size, so records straddle page boundaries: an append that
// locked pages one at a time would have a place to lose part of itself.
constexpr std::size_t kRecordBytes = 1000;
constexpr std::uint64_t kWritesPerThread = 256;
constexpr std::uint64_t kRecords = kWritesPerThread * kSharedThreads;
static_assert(kRecordBytes % kTagBytes == 0);

}  // namespace

AppendLosses measure_append_losses(const ProbeDir& dir, Deadline deadline) {
  const std::string path = dir.file("append");
  const Fd fd = open_file(path, O_RDWR | O_CREAT | O_EXCL);
  std::vector<Fd> own;  // one open file description per thread: no offset is shared
  std::vector<std::function<void()>> bodies;
  for (std::uint64_t t = 0; t < kSharedThreads; ++t) {
    own.push_back(open_file(path, O_WRONLY | O_APPEND));
    bodies.push_back(record_writer(own.back().get(), kRecordBytes, t * kWritesPerThread + 1, kWritesPerThread));
  }
  AppendLosses result{.record_bytes = kRecordBytes};
  while (!deadline.passed()) {
    truncate_to(fd.get(), 0);
    race(bodies);
    result.trials += kRecords;
    const std::string back = read_back(fd.get(), static_cast<std::size_t>(file_size(fd.get())));
    const RecordTally tally = tally_records(std::as_bytes(std::span(back)), kRecordBytes, kRecords);
    result.lost += kRecords - tally.distinct;
    result.overwritten += tally.bad_slots;
  }
  return result;
}

}  // namespace lockstep::native::fileio
