#include <fcntl.h>

#include <span>
#include <string>
#include <vector>

#include "native/fileio/experiments.hpp"
#include "native/fileio/probe_io.hpp"
#include "native/fileio/records.hpp"

namespace lockstep::native::fileio {

namespace {

// Enough pages (64 of 4 KiB) that a write locking page by page has many places to
// interleave with another.
constexpr std::size_t kInterleaveBytes = std::size_t{256} * 1024;

bool one_pattern(std::span<const std::byte> range) {
  return all_bytes(range, kPatternA) || all_bytes(range, kPatternB);
}

}  // namespace

void measure_interleaved_same_range(const ProbeDir& dir, InterleavedWrites& out, Deadline deadline) {
  out.bytes = kInterleaveBytes;
  const Fd fd = open_file(dir.file("interleave-range"), O_RDWR | O_CREAT | O_EXCL);
  const std::vector<std::byte> a = pattern(kPatternA, kInterleaveBytes);
  const std::vector<std::byte> b = pattern(kPatternB, kInterleaveBytes);
  while (!deadline.passed()) {
    race({[&] { pwrite_whole(fd.get(), a, 0); }, [&] { pwrite_whole(fd.get(), b, 0); }});
    const std::string back = read_back(fd.get(), kInterleaveBytes);
    ++out.same_range_trials;
    if (back.size() != kInterleaveBytes || !one_pattern(std::as_bytes(std::span(back)))) ++out.same_range_interleaved;
  }
}

void measure_interleaved_appends(const ProbeDir& dir, InterleavedWrites& out, Deadline deadline) {
  out.bytes = kInterleaveBytes;
  const std::string path = dir.file("interleave-append");
  const Fd fd = open_file(path, O_RDWR | O_CREAT | O_EXCL);
  const Fd append_a = open_file(path, O_WRONLY | O_APPEND);
  const Fd append_b = open_file(path, O_WRONLY | O_APPEND);
  const std::vector<std::byte> a = pattern(kPatternA, kInterleaveBytes);
  const std::vector<std::byte> b = pattern(kPatternB, kInterleaveBytes);
  while (!deadline.passed()) {
    truncate_to(fd.get(), 0);
    race({[&] { write_whole(append_a.get(), a); }, [&] { write_whole(append_b.get(), b); }});
    ++out.append_trials;
    const std::string back = read_back(fd.get(), 2 * kInterleaveBytes + 1);
    if (back.size() != 2 * kInterleaveBytes) {
      ++out.append_lost;
      continue;
    }
    const auto bytes = std::as_bytes(std::span(back));
    const auto first = bytes.first(kInterleaveBytes);
    const auto second = bytes.last(kInterleaveBytes);
    // Whole records in either order: each half one pattern, and the two halves differ.
    if (!one_pattern(first) || !one_pattern(second) || first[0] == second[0]) ++out.append_interleaved;
  }
}

}  // namespace lockstep::native::fileio
