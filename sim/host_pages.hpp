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

// A std::allocator whose large blocks are mapped with their pages populated.
template <class T>
struct PopulatedAllocator {
  using value_type = T;
  PopulatedAllocator() = default;
  template <class U>
  PopulatedAllocator(const PopulatedAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kPopulateBytes) return static_cast<T*>(::operator new(bytes));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kPopulateBytes) {
      ::operator delete(p);
    } else {
      munmap(p, bytes);
    }
  }
  template <class U>
  bool operator==(const PopulatedAllocator<U>&) const {
    return true;
  }
};

}  // namespace lockstep::sim
