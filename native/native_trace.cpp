#include "native/native_trace.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace lockstep::native {

namespace {

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007) return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx & (1U << 8)) != 0;
#else
  return false;
#endif
}

const bool kTsc = invariant_tsc();

TraceSession* g_active = nullptr;  // written only while no runner threads exist
thread_local ThreadTrace* tls_trace = nullptr;

int current_cpu_or_minus1() { return sched_getcpu(); }

void stack_of_this_thread(std::uintptr_t& lo, std::uintptr_t& hi) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* base = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attr, &base, &size) == 0) {
    lo = reinterpret_cast<std::uintptr_t>(base);
    hi = lo + size;
  }
  pthread_attr_destroy(&attr);
}

}  // namespace

bool TraceClock::uses_tsc() { return kTsc; }

std::uint64_t TraceClock::steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::uint64_t TraceClock::ticks() {
#if defined(__x86_64__)
  if (kTsc) return __rdtsc();
#endif
  return steady_ns();
}

TraceSession::TraceSession(TraceOptions options) : options_(options), tsc_(kTsc) {
  if (g_active != nullptr) throw std::logic_error("a native trace session is already recording");
  g_active = this;
  calib_ticks_ = TraceClock::ticks();
  calib_ns_ = TraceClock::steady_ns();
  start_ticks_ = end_ticks_ = calib_ticks_;
  const std::uint8_t mask = static_cast<std::uint8_t>((options.events ? kTraceEvents : 0) |
                                                      (options.events && options.steps ? kTraceSteps : 0) |
                                                      (options.profile_locks ? kProfileLocks : 0));
  detail::trace_mask.store(mask, std::memory_order_relaxed);
}

TraceSession::~TraceSession() {
  detail::trace_mask.store(0, std::memory_order_relaxed);
  g_active = nullptr;
}

TraceSession* TraceSession::active() { return g_active; }

void TraceSession::prepare(std::size_t threads) {
  capacity_ = !options_.events ? 0
              : options_.events_per_thread != 0
                  ? options_.events_per_thread
                  : std::min(kDefaultEventsPerThread, kMaxEventsAllThreads / std::max<std::size_t>(threads, 1));
  threads_.clear();
  threads_.resize(threads);
}

void TraceSession::attach(std::size_t index, std::string name, CpuId pinned_cpu) {
  auto t = std::make_unique<ThreadTrace>();
  t->index = index;
  t->name = std::move(name);
  t->cpu = pinned_cpu;
  t->capacity = capacity_;
  t->sample = std::max<std::uint32_t>(options_.sample, 1);
  t->rng = 0x9e3779b97f4a7c15ULL * (index + 1);  // any nonzero seed; the draws need not repeat
  // Value-initialised: every page is written here, before the release, not by the first
  // events of the run.
  t->events = std::make_unique<TraceEvent[]>(capacity_ + 2);
  if (options_.profile_locks) t->locks = std::make_unique<profile::LockProfiler>();
  stack_of_this_thread(t->stack_lo, t->stack_hi);
  tls_trace = t.get();
  threads_.at(index) = std::move(t);
}

void TraceSession::started() { start_ticks_ = TraceClock::ticks(); }

void TraceSession::running() {
  if (tls_trace == nullptr) return;
  tls_trace->push_bookend(TraceEvent{TraceClock::ticks(), 0, 0, 0, TraceEventKind::state,
                                     static_cast<std::uint8_t>(NativeThreadState::running), false});
}

void TraceSession::detach() {
  if (tls_trace == nullptr) return;
  tls_trace->push_bookend(TraceEvent{TraceClock::ticks(), 0, 0, 0, TraceEventKind::state,
                                     static_cast<std::uint8_t>(NativeThreadState::finished), false});
  tls_trace = nullptr;
}

void TraceSession::ended() {
  end_ticks_ = TraceClock::ticks();
  const std::uint64_t ns = TraceClock::steady_ns();
  if (tsc_ && end_ticks_ > calib_ticks_ && ns > calib_ns_)
    ns_per_tick_ = static_cast<double>(ns - calib_ns_) / static_cast<double>(end_ticks_ - calib_ticks_);
}

std::uint64_t TraceSession::ns_since_start(std::uint64_t ticks) const {
  if (ticks <= start_ticks_) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(ticks - start_ticks_) * ns_per_tick_ + 0.5);
}

profile::LockProfile TraceSession::lock_profile(const profile::LockProfiler::Namer& name_of) const {
  profile::LockProfiler all;
  for (const auto& t : threads_)
    if (t && t->locks) all.absorb(*t->locks);
  return all.profile(name_of, tsc_ ? ns_per_tick_ : 1.0);
}

std::uint64_t TraceSession::lock_profile_unmatched() const {
  std::uint64_t n = 0;
  for (const auto& t : threads_)
    if (t && t->locks) n += t->locks->unmatched();
  return n;
}

int TraceSession::thread_of_stack_address(std::uint64_t addr) const {
  for (const auto& t : threads_)
    if (t && addr >= t->stack_lo && addr < t->stack_hi) return static_cast<int>(t->index);
  return -1;
}

void TraceSession::label(const void* at, std::size_t bytes, std::string_view name, const LabelLayout* layout) {
  const auto addr = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(at));
  const std::lock_guard guard(labels_mutex_);
  if (!labels_seen_.emplace(addr, bytes, std::string(name)).second) return;
  if (labels_.size() >= kMaxLabels) {
    ++labels_dropped_;
    return;
  }
  TraceLabel l{addr, bytes, std::string(name), 0, 0, {}};
  if (layout != nullptr) {
    l.stride = layout->stride;
    l.first = layout->first;
    for (const LabelField& f : layout->fields) l.fields.push_back({f.offset, f.bytes, std::string(f.name)});
  }
  labels_.push_back(std::move(l));
}

namespace {

// A unit opens (ThreadTrace, "Sampling"): when it is the outermost, draw whether it is recorded.
void open_unit(ThreadTrace& t) {
  if (t.open_units++ != 0) return;
  if (t.sample <= 1) return;
  t.rng ^= t.rng << 13;
  t.rng ^= t.rng >> 7;
  t.rng ^= t.rng << 17;
  t.recording = t.rng % t.sample == 0;
}

void close_unit(ThreadTrace& t) {
  if (t.open_units > 0) --t.open_units;
}

}  // namespace

void trace_lock(const void* lock, LockNote act, bool shared, const std::source_location& site) {
  ThreadTrace* t = tls_trace;
  if (t == nullptr) return;
  const std::uint64_t now = TraceClock::ticks();
  if (t->locks) [[unlikely]]
    t->locks->note(static_cast<std::uint32_t>(t->index), static_cast<std::uint32_t>(std::max(t->cpu, 0)),
                   reinterpret_cast<std::uintptr_t>(lock), act, shared, site, now);
  if (t->capacity == 0) return;  // a lock profile alone
  // A hold is a unit from its wait (or its acquire, uncontended) to its release.
  if (act == LockNote::wait) {
    if (!t->waiting) open_unit(*t);
    t->waiting = true;
  } else if (act == LockNote::acquire) {
    if (!t->waiting) open_unit(*t);
    t->waiting = false;
  }
  if (t->recording)
    t->push(TraceEvent{now, reinterpret_cast<std::uintptr_t>(lock),
                       site.line() == 0 ? 0 : reinterpret_cast<std::uintptr_t>(site.file_name()), site.line(),
                       TraceEventKind::lock, static_cast<std::uint8_t>(act), shared});
  if (act == LockNote::release) close_unit(*t);
}

void trace_futex_queue(FutexQueueNote act, std::uint32_t bucket, std::uint64_t key, const void* waiter_node) {
  ThreadTrace* t = tls_trace;
  if (t == nullptr || t->capacity == 0) return;
  t->push(TraceEvent{TraceClock::ticks(), key, reinterpret_cast<std::uintptr_t>(waiter_node), bucket,
                     TraceEventKind::futex_queue, static_cast<std::uint8_t>(act), false});
}

// Only a thread's outermost steps (futex_wait, futex_wake): the inner ones would multiply the
// events of a futex call by five.
void trace_step(StepNote act, std::string_view what) {
  ThreadTrace* t = tls_trace;
  if (t == nullptr || t->capacity == 0) return;
  const bool outermost = act == StepNote::begin ? t->step_depth++ == 0 : --t->step_depth == 0;
  if (!outermost) return;
  if (act == StepNote::begin) open_unit(*t);
  if (t->recording)
    t->push(TraceEvent{TraceClock::ticks(), reinterpret_cast<std::uintptr_t>(what.data()), what.size(), 0,
                       TraceEventKind::step, static_cast<std::uint8_t>(act), false});
  if (act == StepNote::end) close_unit(*t);
}

void trace_label(const void* at, std::size_t bytes, std::string_view name, const LabelLayout* layout) {
  if (g_active != nullptr) g_active->label(at, bytes, name, layout);
}

void trace_park(bool sleeps) {
  ThreadTrace* t = tls_trace;
  if (t == nullptr || t->capacity == 0) return;
  const std::uint64_t now = TraceClock::ticks();
  const auto cpu = static_cast<std::uint32_t>(current_cpu_or_minus1());
  t->push(TraceEvent{now, 0, 0, cpu, TraceEventKind::park, 0, false});
  if (sleeps)
    t->push(
        TraceEvent{now, 0, 0, 0, TraceEventKind::state, static_cast<std::uint8_t>(NativeThreadState::parked), false});
}

void trace_woken() {
  ThreadTrace* t = tls_trace;
  if (t == nullptr || t->capacity == 0) return;
  t->push(TraceEvent{TraceClock::ticks(), 0, 0, 0, TraceEventKind::state,
                     static_cast<std::uint8_t>(NativeThreadState::running), false});
}

void trace_unpark(int target, bool woke) {
  ThreadTrace* t = tls_trace;
  if (t == nullptr || t->capacity == 0 || target < 0) return;
  t->push(TraceEvent{TraceClock::ticks(), static_cast<std::uint64_t>(target), 0,
                     static_cast<std::uint32_t>(current_cpu_or_minus1()), TraceEventKind::unpark, 0, woke});
}

}  // namespace lockstep::native
