// SimPlatform: the Platform of core/platform.hpp on the simulator. Each call on shared state
// becomes a scheduling point and a costed access on the engine running this host thread.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "core/platform.hpp"
#include "core/properties.hpp"
#include "sim/exec/engine.hpp"

namespace lockstep::sim {

namespace detail {
template <class T>
std::uint64_t to_bits(T value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
template <class T>
T from_bits(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}
inline Engine& engine() { return *Engine::current(); }
// Outside an execution (reading a result after the run) accesses go straight to the bytes.
inline std::uint64_t load(const void* host, unsigned size, std::memory_order order, bool plain) {
  Engine* e = Engine::current();
  return e != nullptr ? e->load(host, size, order, plain) : Engine::direct_load(host, size);
}
inline void store(void* host, unsigned size, std::uint64_t value, std::memory_order order, bool plain) {
  Engine* e = Engine::current();
  if (e != nullptr) {
    e->store(host, size, value, order, plain);
  } else {
    Engine::direct_store(host, size, value);
  }
}
inline std::uint64_t rmw(void* host, unsigned size, RmwOp op, std::uint64_t operand, std::uint64_t desired,
                         std::memory_order order, bool* success) {
  Engine* e = Engine::current();
  return e != nullptr ? e->rmw(host, size, op, operand, desired, order, success)
                      : Engine::direct_rmw(host, size, op, operand, desired, success);
}
}  // namespace detail

struct SimPlatform {
  using Thread = ThreadId;

  template <class T>
  class Atomic {
    static_assert(std::is_trivially_copyable_v<T> && std::has_single_bit(sizeof(T)) && sizeof(T) <= 8,
                  "simulated atomics hold trivially copyable values of 1, 2, 4 or 8 bytes");

   public:
    constexpr Atomic() noexcept : value_{} {}
    constexpr Atomic(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor)
    Atomic(const Atomic&) = delete;
    Atomic& operator=(const Atomic&) = delete;

    T load(std::memory_order order = std::memory_order_seq_cst) const {
      return detail::from_bits<T>(detail::load(&value_, sizeof(T), order, false));
    }
    void store(T value, std::memory_order order = std::memory_order_seq_cst) {
      detail::store(&value_, sizeof(T), detail::to_bits(value), order, false);
    }
    T exchange(T value, std::memory_order order = std::memory_order_seq_cst) {
      return rmw(RmwOp::exchange, value, order);
    }
    bool compare_exchange_strong(T& expected, T desired, std::memory_order order = std::memory_order_seq_cst) {
      bool ok = false;
      const std::uint64_t old = detail::rmw(&value_, sizeof(T), RmwOp::compare_exchange, detail::to_bits(expected),
                                            detail::to_bits(desired), order, &ok);
      if (!ok) expected = detail::from_bits<T>(old);
      return ok;
    }
    T fetch_add(T v, std::memory_order order = std::memory_order_seq_cst) requires std::integral<T> {
      return rmw(RmwOp::fetch_add, v, order);
    }
    T fetch_sub(T v, std::memory_order order = std::memory_order_seq_cst) requires std::integral<T> {
      return rmw(RmwOp::fetch_sub, v, order);
    }
    T fetch_or(T v, std::memory_order order = std::memory_order_seq_cst) requires std::integral<T> {
      return rmw(RmwOp::fetch_or, v, order);
    }
    T fetch_and(T v, std::memory_order order = std::memory_order_seq_cst) requires std::integral<T> {
      return rmw(RmwOp::fetch_and, v, order);
    }

   private:
    T rmw(RmwOp op, T operand, std::memory_order order) {
      return detail::from_bits<T>(detail::rmw(&value_, sizeof(T), op, detail::to_bits(operand), 0, order, nullptr));
    }
    alignas(sizeof(T)) T value_;
  };

  // Plain shared data: explicit loads and stores, costed and (in the model checker) checked
  // for data races.
  template <class T>
  class Shared {
    static_assert(std::is_trivially_copyable_v<T> && std::has_single_bit(sizeof(T)) && sizeof(T) <= 8,
                  "simulated shared cells hold trivially copyable values of 1, 2, 4 or 8 bytes");

   public:
    constexpr Shared() noexcept : value_{} {}
    constexpr Shared(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor)
    T load() const { return detail::from_bits<T>(detail::load(&value_, sizeof(T), std::memory_order_relaxed, true)); }
    void store(T value) { detail::store(&value_, sizeof(T), detail::to_bits(value), std::memory_order_relaxed, true); }

   private:
    alignas(sizeof(T)) T value_;
  };

  // A shared object in the current thread's frames (core/platform.hpp, P::Local): its bytes
  // come from the simulator's frame area of this thread, so its simulated address does not
  // depend on how the host compiler laid out the frames that declare it.
  template <class T>
  class Local {
   public:
    template <class... Args>
    explicit Local(Args&&... args) {
      if constexpr (std::is_empty_v<T>) {
        object_ = new (&empty_) T(std::forward<Args>(args)...);
      } else {
        engine_ = Engine::current();
        if (engine_ == nullptr) throw std::logic_error("a P::Local outside a simulated thread");
        push_ = engine_->push_frame(sizeof(T), alignof(T));
        object_ = new (push_.host) T(std::forward<Args>(args)...);
      }
    }
    ~Local() {
      object_->~T();
      // Also when an aborted thread is unwound from the host (Engine::destroy_fibers).
      if constexpr (!std::is_empty_v<T>) engine_->pop_frame(push_.host, push_.depth_before);
    }
    Local(const Local&) = delete;
    Local& operator=(const Local&) = delete;

    T& operator*() { return *object_; }
    T* operator->() { return object_; }
    T* get() { return object_; }

   private:
    T* object_ = nullptr;
    Engine* engine_ = nullptr;
    SimMemory::FramePush push_{};
    [[no_unique_address]] std::conditional_t<std::is_empty_v<T>, T, char> empty_{};
  };

  static void fence(std::memory_order order) { detail::engine().fence(order); }
  static void cpu_relax() { detail::engine().pause(); }
  static void park() { detail::engine().park(); }
  static void unpark(Thread thread) { detail::engine().unpark(thread); }
  static Thread self() { return detail::engine().self(); }
  static void* allocate(std::size_t bytes, std::size_t align, NodeId node) {
    return detail::engine().allocate(bytes, align, node);
  }
  static void deallocate(void*, std::size_t) {}  // the arena is reset with each execution
  static std::uint64_t address_of(const void* ptr) { return detail::engine().memory().address_of(ptr); }
  static void* pointer_to(std::uint64_t addr) { return detail::engine().memory().host_of(addr); }
  static CpuId this_cpu() { return detail::engine().this_cpu(); }
  static NodeId node_of(CpuId cpu) { return detail::engine().node_of(cpu); }
  static void charge(Work kind, std::uint32_t units) { detail::engine().charge(kind, units); }
  static std::uint64_t now() { return detail::engine().read_clock(); }
  static void label(const void* ptr, std::size_t bytes, std::string_view name) {
    detail::engine().label(ptr, bytes, name);
  }
  static void label(const void* ptr, std::size_t bytes, std::string_view name, LabelLayout layout) {
    detail::engine().label(ptr, bytes, name, layout);
  }
  static void violation(std::string_view property, std::string_view message) {
    detail::engine().violation(property, message);
  }
  template <class Condition>
  static void invariant(Condition&& holds, std::string_view what) {
    Engine& e = detail::engine();
    if (!e.observe(std::forward<Condition>(holds))) e.violation(property::invariant, what);
  }
  // Trace notes (core/platform.hpp): an event when the execution is traced, and never a step.
  // Untraced, a note is one thread-local load and a branch; the rest is out of line
  // (sim_platform.cpp), so designs inline as little of it as can be.
  static void note_lock(const void* lock, LockNote what, bool shared, const std::source_location& site) {
    if (Engine::tracing_here()) note_lock_traced(lock, what, shared, site);
  }
  static void note_futex_queue(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address,
                               const void* waiter_node) {
    if (Engine::tracing_here()) note_futex_queue_traced(what, bucket, key_address, waiter_node);
  }
  static void note_step(StepNote what, std::string_view text) {
    if (Engine::tracing_here()) note_step_traced(what, text);
  }

 private:
  static void note_lock_traced(const void* lock, LockNote what, bool shared, const std::source_location& site);
  static void note_futex_queue_traced(FutexQueueNote what, std::uint32_t bucket, std::uint64_t key_address,
                                      const void* waiter_node);
  static void note_step_traced(StepNote what, std::string_view text);
};

static_assert(Platform<SimPlatform>);

}  // namespace lockstep::sim
