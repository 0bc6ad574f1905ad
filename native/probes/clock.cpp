#include "native/probes/clock.hpp"

#if LOCKSTEP_PROBE_TSC
#include <cpuid.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace lockstep::native::probes {

namespace {

// Where a CPUID feature bit lives: the leaf, and the bit of EDX.
struct CpuidBit {
  unsigned leaf;
  unsigned edx_bit;
};
constexpr CpuidBit kInvariantTsc{0x80000007U, 8};  // Intel SDM vol. 2A, CPUID; AMD APM vol. 3, E.4.7
constexpr CpuidBit kRdtscp{0x80000001U, 27};

bool cpuid_has(CpuidBit bit) {
#if LOCKSTEP_PROBE_TSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(bit.leaf & 0x80000000U, nullptr) < bit.leaf) return false;
  if (__get_cpuid(bit.leaf, &a, &b, &c, &d) == 0) return false;
  return ((d >> bit.edx_bit) & 1U) != 0;
#else
  (void)bit;
  return false;
#endif
}

// The first "flags" line of cpuinfo, as a set of words (empty when there is none).
std::string cpu_flags(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return " " + line.substr(line.find(':') + 1) + " ";
  return {};
}

bool has_flag(const std::string& flags, const char* flag) {
  return flags.find(fmt::format(" {} ", flag)) != std::string::npos;
}

#if LOCKSTEP_PROBE_TSC
std::uint64_t raw_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

// A TSC reading and the CLOCK_MONOTONIC_RAW time it was taken at: the tightest of a few
// brackets (an interrupt inside one widens it), the raw time at the bracket's middle.
struct Pair {
  double raw_ns = 0;
  double tsc = 0;
};

Pair paired_reading() {
  constexpr int kTries = 8;
  Pair best;
  std::uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < kTries; ++i) {
    const std::uint64_t before = raw_ns();
    _mm_lfence();
    const std::uint64_t tsc = __rdtsc();
    _mm_lfence();
    const std::uint64_t after = raw_ns();
    if (after - before < best_width) {
      best_width = after - before;
      best = Pair{static_cast<double>(before) + static_cast<double>(after - before) / 2, static_cast<double>(tsc)};
    }
  }
  return best;
}
#endif

}  // namespace

bool invariant_tsc(std::string& why_not, const std::string& cpuinfo_path) {
#if LOCKSTEP_PROBE_TSC
  if (cpuid_has(kInvariantTsc)) return true;
  const std::string flags = cpu_flags(cpuinfo_path);
  if (has_flag(flags, "constant_tsc") && has_flag(flags, "nonstop_tsc")) return true;
  why_not = "no invariant TSC (CPUID 0x80000007 EDX bit 8 clear, and not both constant_tsc and nonstop_tsc in " +
            cpuinfo_path + ")";
  return false;
#else
  (void)cpuinfo_path;
  why_not = "not an x86 CPU";
  return false;
#endif
}

std::string ClockInfo::description() const {
  return tsc ? fmt::format("tsc {:.3f} GHz", tsc_ghz) : std::string("clock_gettime");
}

Clock::Clock(Source source) {
  if (source == Source::clock_gettime) {
    info_.why_not_tsc = "clock_gettime asked for";
    return;
  }
  if (!invariant_tsc(info_.why_not_tsc)) return;
#if LOCKSTEP_PROBE_TSC
  info_.rdtscp = cpuid_has(kRdtscp);
  const Pair first = paired_reading();
  std::this_thread::sleep_for(std::chrono::duration<double>(kCalibrationSeconds));
  const Pair last = paired_reading();
  info_.calibration_s = (last.raw_ns - first.raw_ns) * 1e-9;
  info_.tsc_ghz = (last.tsc - first.tsc) / (last.raw_ns - first.raw_ns);
  info_.tsc = true;
#endif
}

double Clock::empty_interval_ticks() const {
  constexpr int kTries = 1001;  // odd: the median is one of them
  std::vector<std::uint64_t> ticks(kTries);
  for (std::uint64_t& t : ticks) {
    const std::uint64_t a = start();
    t = stop() - a;
  }
  std::nth_element(ticks.begin(), ticks.begin() + kTries / 2, ticks.end());
  return static_cast<double>(ticks[kTries / 2]);
}

}  // namespace lockstep::native::probes
