// The native probes' clock: the CPU's time-stamp counter where it is invariant (it ticks at
// one rate in every P-state and C-state, so ticks convert to nanoseconds with one factor),
// its rate measured against CLOCK_MONOTONIC_RAW; clock_gettime(CLOCK_MONOTONIC) elsewhere.
// A probe reads it around what it times and converts the difference with ns().
#pragma once

#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define LOCKSTEP_PROBE_TSC 1
#else
#define LOCKSTEP_PROBE_TSC 0  // other architectures time with clock_gettime
#endif

#include <atomic>
#include <cstdint>
#include <string>

namespace lockstep::native::probes {

// How long the TSC is counted against CLOCK_MONOTONIC_RAW: a bracketing error of ~100 ns at
// each end is 1e-5 of 20 ms, far below what the probes resolve, and 20 ms is small beside a
// probe's budget of seconds.
inline constexpr double kCalibrationSeconds = 0.020;

struct ClockInfo {
  bool tsc = false;
  double tsc_ghz = 0;               // ticks per nanosecond; 0 without the TSC
  double calibration_s = 0;         // the CLOCK_MONOTONIC_RAW interval the rate was measured over
  bool rdtscp = false;              // the CPU has RDTSCP (a VM may hide it)
  std::string why_not_tsc;          // without the TSC: what was missing
  std::string description() const;  // "tsc 2.095 GHz" or "clock_gettime"
};

class Clock {
 public:
  enum class Source { automatic, clock_gettime };

  // Measures the TSC's rate when the CPU's TSC is invariant and `source` allows it.
  explicit Clock(Source source = Source::automatic);

  const ClockInfo& info() const { return info_; }

  // A reading before the timed code: no earlier instruction is still running and no later
  // one has started. LFENCE is dispatch-serializing (Intel always; AMD since Zen 2, and
  // Linux makes it so on older AMD parts for Spectre v1): the first keeps RDTSC from
  // executing before the work that precedes it, the second keeps the timed loads from
  // starting before the counter is read.
  std::uint64_t start() const { return info_.tsc ? read_tsc(false) : gettime_ns(); }

  // A reading after the timed code. RDTSCP waits until every earlier instruction has
  // executed and earlier loads are globally visible, so the last load of a chase is inside
  // the interval; the LFENCE after it keeps later work from starting before the read. A CPU
  // without RDTSCP (some hypervisors hide it) gets LFENCE; RDTSC; LFENCE, which orders the
  // same way.
  std::uint64_t stop() const { return info_.tsc ? read_tsc(info_.rdtscp) : gettime_ns(); }

  // Nanoseconds in `ticks` (the difference of two readings).
  double ns(double ticks) const { return info_.tsc ? ticks / info_.tsc_ghz : ticks; }

  // What a start() and stop() with nothing between them measure (the median of many
  // tries, in ticks): the readings' own cost, which probes subtract from what they time.
  double empty_interval_ticks() const;

 private:
  // LFENCE; RDTSC; LFENCE, or with `rdtscp` RDTSCP; LFENCE. Each also keeps the compiler
  // from moving memory accesses across the reading: the fences order the CPU,
  // atomic_signal_fence orders the compiler. Without the TSC (another architecture) it is
  // never called.
  static std::uint64_t read_tsc(bool rdtscp) {
#if LOCKSTEP_PROBE_TSC
    std::atomic_signal_fence(std::memory_order_seq_cst);
    std::uint64_t t;
    if (rdtscp) {
      unsigned aux;
      t = __rdtscp(&aux);
    } else {
      _mm_lfence();
      t = __rdtsc();
    }
    _mm_lfence();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return t;
#else
    (void)rdtscp;
    return 0;
#endif
  }
  static std::uint64_t gettime_ns() {
    timespec ts{};
    std::atomic_signal_fence(std::memory_order_seq_cst);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
  }

  ClockInfo info_;
};

// The CPU's TSC is invariant: CPUID 0x80000007 EDX bit 8, or both `constant_tsc` and
// `nonstop_tsc` among the kernel's flags in `cpuinfo_path` (the kernel sets them from the
// same bit, and a hypervisor may hide the CPUID leaf while the guest kernel still knows).
// Sets `why_not` when it is not.
bool invariant_tsc(std::string& why_not, const std::string& cpuinfo_path = "/proc/cpuinfo");

}  // namespace lockstep::native::probes
