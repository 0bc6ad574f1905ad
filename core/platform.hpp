// The seam between a design and the platform it runs on (docs/architecture.md, "The seam").
//
// Every design in core/ is a template over a platform P that satisfies `Platform`. The
// simulator's P turns each call into a scheduling point and a costed machine access; the
// native P inlines each call to the plain operation, so native code pays nothing for it
// (the seed's "inline with const arguments" trick, done with templates as in folly's
// DeterministicSchedule).
#pragma once

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>
#include <source_location>
#include <span>
#include <string_view>
#include <utility>

namespace lockstep {

using CpuId = int;
using NodeId = int;

// Work the simulator cannot see, charged by kind so that designs name what they do and the
// machine configuration says what it costs (docs/architecture.md, "P::charge").
enum class Work : std::uint8_t {
  hash,           // hashing a key (jhash2 and friends)
  syscall_entry,  // entering the kernel
  syscall_exit,   // returning to user space
  compute,        // anything else, in units of one simple instruction
};
inline constexpr int kWorkKinds = 4;

// What a lock tells the platform about one thread's way through it (P::note_lock): the thread
// found the lock taken and starts waiting (once per attempt, not per spin), now holds it, or
// has let it go. Locks are built from atomics, so without these notes a trace shows only
// loads and stores of lock words; with them a viewer can draw holds and hand-offs.
enum class LockNote : std::uint8_t { wait, acquire, release };

// What a futex table tells the platform about a hash bucket's wait queue
// (P::note_futex_queue): a waiter was put on it or taken off it.
enum class FutexQueueNote : std::uint8_t { enqueue, dequeue };

// Design-level names for simulated memory (P::label with a layout; docs/traces.md, "Names"):
// the fields of a labeled object, and for an array of objects the stride between elements
// and the index of the first, so that an access reads "bucket[14].waiters" instead of
// "futex_table+456". Field names are string literals (a layout is built per allocation).
struct LabelField {
  std::uint32_t offset = 0;
  std::uint32_t bytes = 0;
  std::string_view name;
};
struct LabelLayout {
  std::uint64_t stride = 0;  // above 0: the region is an array of elements this far apart
  std::uint64_t first = 0;   // the index of the region's first element
  std::span<const LabelField> fields{};
};

// The field `member` of `object`, named `name`: its offset measured on the object itself,
// so it works for any layout (no offsetof on types that are not standard-layout).
template <class Object, class Member>
LabelField label_field(const Object& object, const Member& member, std::string_view name) {
  const auto* base = reinterpret_cast<const std::byte*>(&object);
  const auto* at = reinterpret_cast<const std::byte*>(&member);
  return LabelField{static_cast<std::uint32_t>(at - base), static_cast<std::uint32_t>(sizeof(Member)), name};
}

// What a design says about the protocol step a thread is in (P::note_step): it begins one
// (`what` names it: "lock the bucket") or ends the innermost one it began. Counterexamples
// are printed grouped by these steps, the raw accesses folded under them (docs/traces.md,
// `step` events). Steps nest: an operation ("futex_wait") holds its steps.
enum class StepNote : std::uint8_t { begin, end };

// The read-modify-write operations an atomic word supports.
enum class RmwOp : std::uint8_t { exchange, compare_exchange, fetch_add, fetch_sub, fetch_or, fetch_and };

// What an atomic word must offer a design.
template <class A, class T>
concept AtomicWord = requires(A a, const A ca, T v, T& expected, std::memory_order o) {
  { ca.load(o) } -> std::same_as<T>;
  { a.store(v, o) } -> std::same_as<void>;
  { a.exchange(v, o) } -> std::same_as<T>;
  { a.compare_exchange_strong(expected, v, o) } -> std::same_as<bool>;
  { a.fetch_add(v, o) } -> std::same_as<T>;
  { a.fetch_sub(v, o) } -> std::same_as<T>;
  { a.fetch_or(v, o) } -> std::same_as<T>;
  { a.fetch_and(v, o) } -> std::same_as<T>;
};

// What a plain (non-atomic) shared location must offer: explicit loads and stores, so the
// simulator can cost them and check them for data races.
template <class S, class T>
concept SharedCell = requires(S s, const S cs, T v) {
  { cs.load() } -> std::same_as<T>;
  { s.store(v) } -> std::same_as<void>;
};

template <class P>
concept Platform = requires(typename P::Thread thread, std::size_t bytes, CpuId cpu, void* ptr, std::string_view text,
                            std::memory_order order) {
  typename P::Thread;  // a handle that unpark() accepts; copyable, comparable
  requires AtomicWord<typename P::template Atomic<std::uint64_t>, std::uint64_t>;
  requires AtomicWord<typename P::template Atomic<std::uint32_t>, std::uint32_t>;
  requires SharedCell<typename P::template Shared<std::uint64_t>, std::uint64_t>;
  // A shared object that lives in the calling thread's frames, as Linux's futex_q lives on
  // the waiting task's kernel stack: `typename P::template Local<T> node(args...)` makes
  // one, `*node` and `node->` reach it, and it goes at the end of its scope (last in, first
  // out). Natively it is the object on the stack. The simulator gives it its bytes from the
  // thread's own frame area, so its simulated address, and every cacheline and timing that
  // follows from it, is the same in every build: a host stack frame's layout is the
  // compiler's (a debug build's frames are larger) and has no simulated address at all.
  requires requires(typename P::template Local<std::uint64_t> local) {
    { *local } -> std::same_as<std::uint64_t&>;
    { local.get() } -> std::same_as<std::uint64_t*>;
  };
  { P::fence(order) } -> std::same_as<void>;
  { P::cpu_relax() } -> std::same_as<void>;
  { P::park() } -> std::same_as<void>;
  { P::unpark(thread) } -> std::same_as<void>;
  { P::self() } -> std::same_as<typename P::Thread>;
  { P::allocate(bytes, bytes, NodeId{0}) } -> std::same_as<void*>;
  // The address of platform memory as a number a design may hash or store in shared memory,
  // and back. The simulator gives simulated addresses, so hashes, list links and traces do
  // not depend on where the host happened to map its arena; natively it is the pointer.
  { P::address_of(static_cast<const void*>(ptr)) } -> std::same_as<std::uint64_t>;
  { P::pointer_to(std::uint64_t{0}) } -> std::same_as<void*>;
  { P::deallocate(ptr, bytes) } -> std::same_as<void>;
  { P::this_cpu() } -> std::same_as<CpuId>;
  { P::node_of(cpu) } -> std::same_as<NodeId>;
  { P::charge(Work::hash, 1U) } -> std::same_as<void>;
  { P::now() } -> std::same_as<std::uint64_t>;  // nanoseconds, virtual or steady_clock
  // Names a region for traces and diagnostics; free natively. With a layout, its fields and
  // array elements are named too.
  { P::label(ptr, bytes, text) } -> std::same_as<void>;
  { P::label(ptr, bytes, text, LabelLayout{}) } -> std::same_as<void>;
  // Notes for traces (docs/traces.md: `lock` and `futex` events). They observe and change
  // nothing: no scheduling point, no cost, no access to shared memory, so a traced run takes
  // the same steps as an untraced one; natively they compile to nothing.
  // `lock` is the lock word; `shared` is true for a reader's hold of a reader-writer lock;
  // `site` is where the caller took the lock (its lock() call's std::source_location, which
  // lock profiling reports; docs/os.md), empty for a release.
  {
    P::note_lock(static_cast<const void*>(ptr), LockNote::acquire, bool{}, std::source_location{})
    } -> std::same_as<void>;
  // `bucket` is the bucket's index in its table, `key_address` the futex word's address (as
  // P::address_of gives it) and `waiter_node` the queued waiter's node, which lives on the
  // waiting thread's own stack (as Linux's futex_q does): the simulator names the thread by
  // it without reading the node's shared fields.
  {
    P::note_futex_queue(FutexQueueNote::enqueue, std::uint32_t{0}, std::uint64_t{0}, static_cast<const void*>(ptr))
    } -> std::same_as<void>;
  // A protocol step begins or ends on this thread (StepNote). `text` must outlive the run
  // (a string literal): the simulator keeps the view.
  { P::note_step(StepNote::begin, text) } -> std::same_as<void>;
  // Reports that a property failed. The simulator stops the execution and reports it;
  // natively the first report is kept and the run goes on.
  { P::violation(text, text) } -> std::same_as<void>;
  // What a design assumes and never checked: `P::invariant([&] { return ...; }, "what")`.
  // The simulator evaluates the condition at once, its reads seeing what this thread would
  // see (its own buffered stores first) but taking no step, costing nothing and logging no
  // access, so checking changes no schedule; a false condition is the violation of the
  // property `invariant`, with a replayable schedule. The condition must only read. Natively
  // it is compiled out unless LOCKSTEP_NATIVE_INVARIANTS is defined (debug and sanitizer
  // builds), where a false one is reported as violation() reports.
  {
    P::invariant([] { return true; }, text)
    } -> std::same_as<void>;
};

// A shared object in the calling thread's frames (the Platform concept's P::Local).
template <class P, class T>
using Local = typename P::template Local<T>;

// Allocates and constructs one T in platform memory on `node`, aligned to `align` bytes.
template <class P, class T, class... Args>
T* make_on(NodeId node, std::size_t align, Args&&... args) {
  void* raw = P::allocate(sizeof(T), align < alignof(T) ? alignof(T) : align, node);
  return new (raw) T(std::forward<Args>(args)...);
}

template <class P, class T>
void destroy_on(T* object) {
  object->~T();
  P::deallocate(object, sizeof(T));
}

// A protocol step as a scope: begun here, ended when it goes out of scope; next() ends the
// current inner step and begins another, for operations written as a sequence of steps
// (futex_wait: "count the waiter", "lock the bucket", ...). Natively every call is empty.
template <class P>
class [[nodiscard]] ProtocolSteps {
 public:
  explicit ProtocolSteps(std::string_view operation) { P::note_step(StepNote::begin, operation); }
  ~ProtocolSteps() {
    if (inner_) P::note_step(StepNote::end, {});
    P::note_step(StepNote::end, {});
  }
  ProtocolSteps(const ProtocolSteps&) = delete;
  ProtocolSteps& operator=(const ProtocolSteps&) = delete;

  void next(std::string_view step) {
    if (inner_) P::note_step(StepNote::end, {});
    P::note_step(StepNote::begin, step);
    inner_ = true;
  }
  // Ends the inner step without beginning another (what follows belongs to the operation).
  void done() {
    if (inner_) P::note_step(StepNote::end, {});
    inner_ = false;
  }

 private:
  bool inner_ = false;
};

inline constexpr std::size_t kCacheLineBytes = 64;

}  // namespace lockstep
