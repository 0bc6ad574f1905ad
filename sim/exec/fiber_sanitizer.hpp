// Telling AddressSanitizer which stack the engine is running on.
//
// ASan keeps one stack per host thread. The engine's fibers run on stacks of their own
// (SimMemory's), so without being told, ASan takes a throw on a fiber (an internal error,
// an aborted thread's unwinding) for one on the host thread's stack, whose "stack" then
// spans hundreds of gigabytes: it skips unpoisoning the frames the exception leaves
// (__asan_handle_no_return), and their stale redzones later show up as false
// stack-buffer-overflows (google/sanitizers issue 189). Boost.Context tells ASan itself
// only in its ucontext variant, which Debian's library is not built with, so the engine
// announces each switch: start_switch just before leaving a stack, finish_switch just
// after arriving on one. Outside an ASan build all of this compiles to nothing.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace lockstep::sim {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kFiberSanitizer = true;
#else
inline constexpr bool kFiberSanitizer = false;
#endif

// One stack the engine switches between (a simulated thread's, or the host's), and ASan's
// fake stack for it while it is switched away from (stack-use-after-return detection).
struct SanitizerStack {
  const void* bottom = nullptr;
  std::size_t size = 0;
  void* fake_stack = nullptr;
};

// Leaving `from` for `to`. `from` == nullptr: the stack being left is never resumed (its
// thread finished or is being unwound), so ASan may drop its fake stack.
inline void sanitizer_start_switch([[maybe_unused]] SanitizerStack* from, [[maybe_unused]] const SanitizerStack& to) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(from == nullptr ? nullptr : &from->fake_stack, to.bottom, to.size);
#endif
}

// Arrived on `here`; sets `came_from`'s bounds to those of the stack just left (which is
// how the host's stack is learned: it is the first one a fiber arrives from).
inline void sanitizer_finish_switch([[maybe_unused]] const SanitizerStack& here,
                                    [[maybe_unused]] SanitizerStack* came_from = nullptr) {
#if defined(__SANITIZE_ADDRESS__)
  const void* bottom = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(here.fake_stack, &bottom, &size);
  if (came_from != nullptr) {
    came_from->bottom = bottom;
    came_from->size = size;
  }
#endif
}

}  // namespace lockstep::sim
