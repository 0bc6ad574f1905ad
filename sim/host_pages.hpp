// Host memory for the simulator's large tables, with its pages faulted in up front.
//
// A table the size of megabytes, first written during a run, takes one page fault per
// 4 KiB page as the run touches it; in a virtual machine each fault is a trip through the
// hypervisor (some 5 us on the VM this project is developed on, where the first run of a
// 32-thread futex-hash execution took ~600 of them). Asking the kernel to populate a range
// in one call (MAP_POPULATE, MADV_POPULATE_WRITE) costs a fraction of that. Neither
// changes what the memory holds, so nothing a result or trace can see.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace lockstep::sim {

// Blocks at least this large are mapped populated; smaller ones are left to the allocator
// (a few faults at most).
inline constexpr std::size_t kPopulateBytes = std::size_t{64} << 10;

// Faults in every page of [p, p + bytes) for writing, if the kernel can (Linux 5.14 and
// later); otherwise the pages fault in as they are touched, as before.
inline void populate_pages(void* p, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Blocks of at least kHugeFromBytes are mapped on 2 MiB boundaries, rounded up to whole
// 2 MiB pages, and offered to the kernel for transparent huge pages (MADV_HUGEPAGE; hosts
// whose THP setting is `madvise`, as this project's VM is, give huge pages only to such
// ranges). The machine model's tag arrays and directory are megabytes looked up at random
// (189 MiB of L3 tags on xeon-e7-16s): with 4 KiB pages nearly every lookup also misses
// the host's TLB, and populating them costs one trip through the hypervisor per page.
// hash-sweep ran 34-36 s with 4 KiB pages and 26-29 s with huge ones (`git log -p bench/README.md`).
// Where the host has no huge pages, the range is populated with small ones, as before.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kHugeFromBytes = std::size_t{1} << 20;
inline std::size_t huge_rounded(std::size_t bytes) {
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

// Maps huge_rounded(bytes) on a 2 MiB boundary (over-mapping by 2 MiB, then trimming both
// ends) and populates it; unmap with munmap(p, huge_rounded(bytes)).
inline void* map_huge(std::size_t bytes) {
  const std::size_t rounded = huge_rounded(bytes);
  void* p = mmap(nullptr, rounded + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t end = begin + rounded + kHugePageBytes;
  if (aligned > begin) munmap(p, aligned - begin);
  if (end > aligned + rounded) munmap(reinterpret_cast<void*>(aligned + rounded), end - (aligned + rounded));
#ifdef MADV_HUGEPAGE
  (void)madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);
#endif
  populate_pages(reinterpret_cast<void*>(aligned), rounded);
  return reinterpret_cast<void*>(aligned);
}

// A std::allocator whose large blocks are mapped with their pages populated (and the
// largest on huge pages).
template <class T>
struct PopulatedAllocator {
  using value_type = T;
  PopulatedAllocator() = default;
  template <class U>
  PopulatedAllocator(const PopulatedAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kPopulateBytes) return static_cast<T*>(::operator new(bytes));
    if (bytes >= kHugeFromBytes) return static_cast<T*>(map_huge(bytes));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kPopulateBytes) {
      ::operator delete(p);
    } else {
      munmap(p, bytes >= kHugeFromBytes ? huge_rounded(bytes) : bytes);
    }
  }
  template <class U>
  bool operator==(const PopulatedAllocator<U>&) const {
    return true;
  }
};

}  // namespace lockstep::sim
