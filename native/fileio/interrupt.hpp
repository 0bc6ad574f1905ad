// Ctrl-C during the file probe: the first SIGINT, SIGTERM or SIGHUP only raises a flag that
// every experiment loop polls, so the threads stop, join and the temporary files are
// removed before the process exits. The handler resets itself, so a second signal ends
// the process at once for a user who will not wait.
#pragma once

namespace lockstep::native::fileio {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers and clears the flag
  ~InterruptGuard();  // restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool interrupted();

}  // namespace lockstep::native::fileio
