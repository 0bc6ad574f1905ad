// Whether another thread of this process is asleep, as the kernel reports it: the state
// letter of /proc/self/task/TID/stat (proc(5)). The futex probe waits for its partner to be
// asleep before it wakes it, so that every timed handoff is a real wakeup and not a race
// with a partner still on its way into FUTEX_WAIT.
#pragma once

#include <optional>

namespace lockstep::native::probes {

// The calling thread's kernel thread id (gettid(2)).
int this_thread_tid();

// The state letter of thread `tid` of this process ('R' running, 'S' interruptible sleep,
// ...), or nothing when the file cannot be read (no /proc, or the thread has ended).
std::optional<char> thread_state(int tid);

}  // namespace lockstep::native::probes
