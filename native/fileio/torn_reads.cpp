#include <fcntl.h>

#include <atomic>
#include <vector>

#include <fmt/format.h>

#include "native/fileio/experiments.hpp"
#include "native/fileio/probe_io.hpp"
#include "native/fileio/records.hpp"

namespace lockstep::native::fileio {

TornReadSize measure_torn_reads(const ProbeDir& dir, std::size_t bytes, Deadline deadline) {
  const Fd fd = open_file(dir.file(fmt::format("torn-{}", bytes)), O_RDWR | O_CREAT | O_EXCL);
  const std::vector<std::byte> a = pattern(kPatternA, bytes);
  const std::vector<std::byte> b = pattern(kPatternB, bytes);
  pwrite_whole(fd.get(), a, 0);
  TornReadSize result{.bytes = bytes};
  std::vector<std::byte> buf(bytes);
  // Both loops poll the deadline, so one thread failing cannot leave the other spinning.
  race({[&] {
          for (bool use_b = true; !deadline.passed(); use_b = !use_b) pwrite_whole(fd.get(), use_b ? b : a, 0);
        },
        [&] {
          while (!deadline.passed()) {
            const std::size_t n = pread_once(fd.get(), buf, 0);
            ++result.trials;
            // The file never changes size, so a short read is not one write's content either.
            const bool whole = n == bytes && (all_bytes(buf, kPatternA) || all_bytes(buf, kPatternB));
            if (!whole) ++result.torn;
          }
        }});
  return result;
}

}  // namespace lockstep::native::fileio
