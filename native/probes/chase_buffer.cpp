#include "native/probes/chase_buffer.hpp"

#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::native::probes {

std::string transparent_huge_page_mode(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  const std::size_t open = text.find('[');
  const std::size_t close = text.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  return text.substr(open + 1, close - open - 1);
}

std::uint64_t anon_huge_bytes(const void* address, const std::string& smaps_path) {
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream in(smaps_path);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    // A mapping's header is "lo-hi perms offset dev inode path"; its fields follow it.
    std::uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      if (inside) return 0;  // the mapping that held it had no AnonHugePages line
      inside = lo <= target && target < hi;
      continue;
    }
    unsigned long long kib = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %llu kB", &kib) == 1) return kib * 1024;
  }
  return 0;
}

ChaseBuffer::ChaseBuffer(std::uint64_t bytes, int node, bool huge_pages) {
  bytes_ = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  // One huge page more than needed, so an aligned start fits inside.
  mapping_bytes_ = static_cast<std::size_t>(bytes_ + kHugePageBytes);
  mapping_ = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::runtime_error(
        fmt::format("cannot map {} bytes for the memory probe: {}", mapping_bytes_, std::strerror(errno)));
  }
  const auto start = reinterpret_cast<std::uintptr_t>(mapping_);
  data_ = reinterpret_cast<char*>((start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes);
  if (huge_pages) huge_requested_ = madvise(data_, static_cast<std::size_t>(bytes_), MADV_HUGEPAGE) == 0;
  if (node >= 0) {
    // Before the first touch: the binding decides where the pages are allocated, not
    // where pages already are. mbind's node count is one more than the mask's bits, as
    // libnuma passes it (the kernel drops the last bit).
    bitmask* mask = numa_allocate_nodemask();
    numa_bitmask_setbit(mask, static_cast<unsigned>(node));
    const long r = mbind(data_, static_cast<unsigned long>(bytes_), MPOL_BIND, mask->maskp, mask->size + 1, 0);
    const int err = errno;
    numa_free_nodemask(mask);
    if (r != 0) {
      munmap(mapping_, mapping_bytes_);
      mapping_ = nullptr;
      throw std::runtime_error(
          fmt::format("cannot bind the memory probe's buffer to node {}: {}", node, std::strerror(err)));
    }
  }
}

ChaseBuffer::~ChaseBuffer() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
}

}  // namespace lockstep::native::probes
