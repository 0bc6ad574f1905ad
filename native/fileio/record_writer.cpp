#include "native/fileio/record_writer.hpp"

#include <vector>

#include "native/fileio/probe_io.hpp"
#include "native/fileio/records.hpp"

namespace lockstep::native::fileio {

std::function<void()> record_writer(int fd, std::size_t record_bytes, std::uint64_t first_tag, std::uint64_t count) {
  return [=] {
    std::vector<std::byte> record(record_bytes);
    for (std::uint64_t i = 0; i < count; ++i) {
      fill_record(record, first_tag + i);
      write_whole(fd, record);
    }
  };
}

}  // namespace lockstep::native::fileio
