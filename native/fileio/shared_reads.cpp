#include <fcntl.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "native/fileio/experiments.hpp"
#include "native/fileio/probe_io.hpp"
#include "native/fileio/records.hpp"

namespace lockstep::native::fileio {

namespace {

// Small reads, many per pass: the window between loading and storing the offset is the
// same for any size, so more reads mean more chances to hit it.
constexpr std::size_t kRecordBytes = 1024;
constexpr std::uint64_t kRecords = 1024;

void write_records(int fd) {
  std::vector<std::byte> all(kRecordBytes * kRecords);
  for (std::uint64_t i = 0; i < kRecords; ++i)
    fill_record(std::span(all).subspan(i * kRecordBytes, kRecordBytes), i + 1);
  pwrite_whole(fd, all, 0);
}

// One pass: every thread read()s until the end of the file; returns each read's tag (0 for
// a read that returned no whole record), per thread.
std::vector<std::vector<std::uint64_t>> one_pass(int fd) {
  std::vector<std::vector<std::uint64_t>> got(kSharedThreads);
  std::vector<std::function<void()>> bodies;
  for (std::size_t t = 0; t < kSharedThreads; ++t) {
    bodies.emplace_back([fd, &tags = got[t]] {
      std::vector<std::byte> buf(kRecordBytes);
      for (std::size_t n; (n = read_once(fd, buf)) != 0;)
        tags.push_back(n == kRecordBytes ? record_tag(buf).value_or(0) : 0);
    });
  }
  seek_to(fd, 0);
  race(bodies);
  return got;
}

}  // namespace

SharedReads measure_shared_reads(const ProbeDir& dir, Deadline deadline) {
  const Fd fd = open_file(dir.file("shared-read"), O_RDWR | O_CREAT | O_EXCL);
  write_records(fd.get());
  SharedReads result{.record_bytes = kRecordBytes};
  while (!deadline.passed()) {
    std::vector<std::uint32_t> times_read(kRecords + 1, 0);
    for (const auto& tags : one_pass(fd.get())) {
      for (const std::uint64_t tag : tags) {
        ++result.trials;
        // A read that straddled two records started at an offset no serial order produces.
        if (tag == 0 || tag > kRecords) {
          ++result.skipped;
        } else if (times_read[tag]++ > 0) {
          ++result.duplicates;
        }
      }
    }
    for (std::uint64_t tag = 1; tag <= kRecords; ++tag)
      if (times_read[tag] == 0) ++result.skipped;
  }
  return result;
}

}  // namespace lockstep::native::fileio
