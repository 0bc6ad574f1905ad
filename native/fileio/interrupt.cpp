#include "native/fileio/interrupt.hpp"

#include <signal.h>

#include <array>
#include <atomic>

namespace lockstep::native::fileio {

namespace {

// A lock-free atomic is the one object a signal handler may write that threads can read.
std::atomic<bool> flag{false};
static_assert(std::atomic<bool>::is_always_lock_free);

constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> previous{};

extern "C" void on_signal(int) { flag.store(true); }

}  // namespace

InterruptGuard::InterruptGuard() {
  flag.store(false);
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // restart: a signal must not fail a read with EINTR
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &previous[i]);
}

InterruptGuard::~InterruptGuard() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &previous[i], nullptr);
}

bool interrupted() { return flag.load(std::memory_order_relaxed); }

}  // namespace lockstep::native::fileio
