// A thread body that write()s a run of tagged records, one call per record. The shared-
// descriptor and O_APPEND experiments both use it; they differ only in the descriptor they
// hand it (one shared by all threads, or one O_APPEND description per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace lockstep::native::fileio {

// Writes tags first_tag .. first_tag + count - 1, each as a record of record_bytes.
std::function<void()> record_writer(int fd, std::size_t record_bytes, std::uint64_t first_tag, std::uint64_t count);

}  // namespace lockstep::native::fileio
