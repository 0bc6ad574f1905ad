#include "native/native_platform.hpp"

#include <linux/futex.h>
#include <numa.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>

#include "measure/host_cpus.hpp"

namespace lockstep::native {

namespace {
constexpr std::int32_t kEmpty = 0;
constexpr std::int32_t kParked = -1;
constexpr std::int32_t kNotified = 1;

long futex(std::atomic<std::int32_t>* word, int op, std::int32_t value) {
  return syscall(SYS_futex, reinterpret_cast<std::int32_t*>(word), op | FUTEX_PRIVATE_FLAG, value, nullptr, nullptr, 0);
}

std::mutex violation_mutex;
std::optional<NativeViolation> first_violation;

thread_local Parker* tls_parker = nullptr;

bool numa_nodes_present() {
  static const bool present = numa_available() >= 0 && numa_num_configured_nodes() > 1;
  return present;
}
}  // namespace

static_assert(std::atomic<std::int32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<std::int32_t>) == sizeof(std::int32_t), "the futex word is the atomic itself");

void Parker::park() {
  // NOTIFIED -> EMPTY returns at once; EMPTY -> PARKED sleeps.
  const bool notified = state_.fetch_sub(1, std::memory_order_acquire) == kNotified;
  if (trace_mask() != 0) [[unlikely]]
    trace_park(!notified);
  if (notified) return;
  for (;;) {
    futex(&state_, FUTEX_WAIT, kParked);
    std::int32_t expected = kNotified;
    if (state_.compare_exchange_strong(expected, kEmpty, std::memory_order_acquire)) break;
    // Spurious wakeup: still PARKED, sleep again.
  }
  if (trace_mask() != 0) [[unlikely]]
    trace_woken();
}

void Parker::unpark() {
  const bool parked = state_.exchange(kNotified, std::memory_order_release) == kParked;
  // Recorded before the wake, so the target's `running` never precedes the unpark in time.
  if (trace_mask() != 0) [[unlikely]]
    trace_unpark(index_, parked);
  if (parked) futex(&state_, FUTEX_WAKE, 1);
}

Parker* current_parker() {
  if (tls_parker == nullptr) {
    // A thread the native runner did not start gets a parker that lives as long as it does.
    thread_local Parker own;
    tls_parker = &own;
  }
  return tls_parker;
}

void set_current_parker(Parker* parker) { tls_parker = parker; }

void record_violation(std::string_view property, std::string_view message) {
  std::lock_guard guard(violation_mutex);
  if (!first_violation) first_violation = NativeViolation{std::string(property), std::string(message)};
}

bool take_violation(NativeViolation& out) {
  std::lock_guard guard(violation_mutex);
  if (!first_violation) return false;
  out = std::move(*first_violation);
  first_violation.reset();
  return true;
}

void* numa_allocate(std::size_t bytes, std::size_t align, NodeId node) {
  void* p = nullptr;
  if (numa_nodes_present()) {
    // numa_alloc_onnode returns whole pages, so any alignment up to a page is met.
    if (align > static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) throw std::bad_alloc();
    p = numa_alloc_onnode(bytes, node);
  } else {
    const std::size_t rounded = (bytes + align - 1) / align * align;
    p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  }
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return p;
}

void numa_deallocate(void* ptr, std::size_t bytes) {
  if (numa_nodes_present()) {
    numa_free(ptr, bytes);
  } else {
    std::free(ptr);
  }
}

CpuId current_cpu() {
  const int cpu = sched_getcpu();
  return cpu < 0 ? 0 : cpu;
}

NodeId node_of_cpu(CpuId cpu) { return measure::node_of_cpu(cpu); }

}  // namespace lockstep::native
