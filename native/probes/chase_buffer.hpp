// The memory a pointer chase runs over: an anonymous mapping aligned to 2 MiB, so every
// 2 MiB of it can be one transparent huge page; asked for huge pages with
// madvise(MADV_HUGEPAGE) when the host's THP setting allows it, and bound to one NUMA node
// (mbind through libnuma) before its first touch, so its pages come from that node. Building
// a cycle writes every line it covers, so its pages are faulted in before it is timed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lockstep::native::probes {

inline constexpr std::uint64_t kHugePageBytes = 2ULL << 20;  // x86-64's PMD-sized page

// The word between brackets in /sys/kernel/mm/transparent_hugepage/enabled: `always`,
// `madvise` or `never`; empty when the file is missing (no THP in this kernel).
std::string transparent_huge_page_mode(const std::string& path = "/sys/kernel/mm/transparent_hugepage/enabled");

// AnonHugePages of the mapping that holds `address`, from an smaps file: how many of its
// bytes are in transparent huge pages. 0 when no mapping holds it.
std::uint64_t anon_huge_bytes(const void* address, const std::string& smaps_path = "/proc/self/smaps");

class ChaseBuffer {
 public:
  // `node` < 0: no binding. Throws std::runtime_error when the mapping or binding fails.
  ChaseBuffer(std::uint64_t bytes, int node, bool huge_pages);
  ~ChaseBuffer();
  ChaseBuffer(const ChaseBuffer&) = delete;
  ChaseBuffer& operator=(const ChaseBuffer&) = delete;

  char* data() const { return data_; }
  std::uint64_t bytes() const { return bytes_; }  // a multiple of kHugePageBytes
  bool huge_pages_requested() const { return huge_requested_; }

 private:
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  char* data_ = nullptr;
  std::uint64_t bytes_ = 0;
  bool huge_requested_ = false;
};

}  // namespace lockstep::native::probes
