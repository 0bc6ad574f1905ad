// Asks the host CPU to start loading a host cacheline: how the simulator pays its own host
// cache misses ahead of time (the machine model's directory entries and tag arrays, the
// engine's simulated words before the threads ahead of an access run).
//
// An asm statement rather than __builtin_prefetch: GCC deletes a loop whose body is only
// __builtin_prefetch calls (a loop without side effects), and the tag arrays' sets span
// several host lines.
#pragma once

namespace lockstep::sim {

inline void prefetch_host_line(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace lockstep::sim
