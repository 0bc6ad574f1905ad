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

constexpr std::size_t kRecordBytes = 1024;
constexpr std::uint64_t kWritesPerThread = 256;
constexpr std::uint64_t kRecords = kWritesPerThread * kSharedThreads;

}  // namespace

SharedWrites measure_shared_writes(const ProbeDir& dir, Deadline deadline) {
  const Fd fd = open_file(dir.file("shared-write"), O_RDWR | O_CREAT | O_EXCL);
  std::vector<std::function<void()>> bodies;
  for (std::uint64_t t = 0; t < kSharedThreads; ++t)
    bodies.push_back(record_writer(fd.get(), kRecordBytes, t * kWritesPerThread + 1, kWritesPerThread));
  SharedWrites result{.record_bytes = kRecordBytes};
  while (!deadline.passed()) {
    truncate_to(fd.get(), 0);
    seek_to(fd.get(), 0);
    race(bodies);
    result.trials += kRecords;
    // Two writes that took the same offset leave one record where there should be two.
    const std::string back = read_back(fd.get(), static_cast<std::size_t>(file_size(fd.get())));
    result.lost += kRecords - tally_records(std::as_bytes(std::span(back)), kRecordBytes, kRecords).distinct;
  }
  return result;
}

}  // namespace lockstep::native::fileio
