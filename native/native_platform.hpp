// NativePlatform: the Platform of core/platform.hpp on real threads and hardware. Every
// call inlines to the plain operation (std::atomic, a futex-based parker, libnuma), so a
// design measured natively pays nothing for the seam. The trace notes and labels record
// only while a native trace is wanted (native/native_trace.hpp); otherwise each costs one
// relaxed load and a branch.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/platform.hpp"
#include "native/native_trace.hpp"

namespace lockstep::native {

// A thread's park/unpark permit on a futex word (the protocol of Rust's std parker):
// EMPTY 0, PARKED -1, NOTIFIED 1. unpark before park makes park return at once.
class Parker {
 public:
  void park();
  void unpark();
  // The runner's thread number of the thread this parker belongs to, for traces (-1: none).
  void set_index(int index) { index_ = index; }

 private:
  std::atomic<std::int32_t> state_{0};
  int index_ = -1;
};

// The first violation a native run reported (property, message), if any.
struct NativeViolation {
  std::string property;
  std::string message;
};
void record_violation(std::string_view property, std::string_view message);
bool take_violation(NativeViolation& out);  // and clears it

Parker* current_parker();
void set_current_parker(Parker* parker);
void* numa_allocate(std::size_t bytes, std::size_t align, NodeId node);
void numa_deallocate(void* ptr, std::size_t bytes);
CpuId current_cpu();
NodeId node_of_cpu(CpuId cpu);

struct NativePlatform {
  using Thread = Parker*;

  template <class T>
  using Atomic = std::atomic<T>;

  // Plain shared data. Racy programs are what the tool studies, and a data race on a plain
  // object is undefined behaviour in C++; relaxed atomic_ref accesses compile to the same
  // plain moves on x86 and arm64 while keeping the program defined.
  template <class T>
  class Shared {
   public:
    constexpr Shared() noexcept : value_{} {}
    constexpr Shared(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor)
    T load() const { return std::atomic_ref<const T>(value_).load(std::memory_order_relaxed); }
    void store(T value) { std::atomic_ref<T>(value_).store(value, std::memory_order_relaxed); }

   private:
    alignas(sizeof(T)) T value_;
  };

  // A shared object in the current thread's frames (core/platform.hpp): natively it is the
  // object itself, on the stack.
  template <class T>
  class Local {
   public:
    template <class... Args>
    explicit Local(Args&&... args) : object_(std::forward<Args>(args)...) {}
    Local(const Local&) = delete;
    Local& operator=(const Local&) = delete;

    T& operator*() { return object_; }
    T* operator->() { return &object_; }
    T* get() { return &object_; }

   private:
    T object_;
  };

  static void fence(std::memory_order order) { std::atomic_thread_fence(order); }
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
  }
  static void park() { current_parker()->park(); }
  static void unpark(Thread thread) { thread->unpark(); }
  static Thread self() { return current_parker(); }
  static void* allocate(std::size_t bytes, std::size_t align, NodeId node) { return numa_allocate(bytes, align, node); }
  static void deallocate(void* ptr, std::size_t bytes) { numa_deallocate(ptr, bytes); }
  static std::uint64_t address_of(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr); }
  static void* pointer_to(std::uint64_t addr) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(addr)); }
  static CpuId this_cpu() { return current_cpu(); }
  static NodeId node_of(CpuId cpu) { return node_of_cpu(cpu); }
  static void charge(Work, std::uint32_t) {}  // the real work is done
  static std::uint64_t now() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  static void label(const void* at, std::size_t bytes, std::string_view name) {
    if (trace_mask() != 0) [[unlikely]]
      trace_label(at, bytes, name, nullptr);
  }
  static void label(const void* at, std::size_t bytes, std::string_view name, LabelLayout layout) {
    if (trace_mask() != 0) [[unlikely]]
      trace_label(at, bytes, name, &layout);
  }
  // Trace notes (docs/traces.md, "Native traces"): recorded only while a trace is wanted.
  static void note_lock(const void* lock, LockNote act, bool shared, const std::source_location& site) {
    if (trace_mask() != 0) [[unlikely]]
      trace_lock(lock, act, shared, site);
  }
  static void note_futex_queue(FutexQueueNote act, std::uint32_t bucket, std::uint64_t key, const void* waiter_node) {
    if (trace_mask() != 0) [[unlikely]]
      trace_futex_queue(act, bucket, key, waiter_node);
  }
  static void note_step(StepNote act, std::string_view what) {
    if ((trace_mask() & kTraceSteps) != 0) [[unlikely]]
      trace_step(act, what);
  }
  static void violation(std::string_view property, std::string_view message) { record_violation(property, message); }
  template <class Condition>
  static void invariant([[maybe_unused]] Condition&& holds, [[maybe_unused]] std::string_view what) {
#if defined(LOCKSTEP_NATIVE_INVARIANTS)
    if (!holds()) record_violation("invariant", what);
#endif
  }
};

static_assert(Platform<NativePlatform>);

}  // namespace lockstep::native
