#include "trace/format.hpp"

#include <array>
#include <cstddef>

namespace lockstep::trace {

namespace {

// The words of an enumeration, in the order of its values.
constexpr std::array<std::string_view, 12> kEventKinds{"label", "step",    "thread", "cpu",       "state",   "op",
                                                       "lock",  "syscall", "futex",  "violation", "witness", "end"};
constexpr std::array<std::string_view, 5> kThreadStates{"running", "ready", "parked", "spinning", "finished"};
constexpr std::array<std::string_view, 3> kLockActs{"wait", "acquire", "release"};
constexpr std::array<std::string_view, 2> kFutexActs{"enqueue", "dequeue"};
constexpr std::array<std::string_view, 2> kStepActs{"begin", "end"};
constexpr std::array<std::string_view, 2> kSyscallActs{"enter", "exit"};
constexpr std::array<std::string_view, 2> kPlatforms{"sim", "native"};

template <class Enum, std::size_t N>
std::string_view word_of(const std::array<std::string_view, N>& words, Enum value) {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? words[i] : std::string_view();
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::string_view, N>& words, std::string_view word) {
  for (std::size_t i = 0; i < N; ++i)
    if (words[i] == word) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view name_of(EventKind kind) { return word_of(kEventKinds, kind); }
EventKind event_kind(std::string_view ev) { return value_of<EventKind>(kEventKinds, ev).value_or(EventKind::other); }

std::string_view name_of(ThreadState state) { return word_of(kThreadStates, state); }
std::optional<ThreadState> parse_thread_state(std::string_view word) {
  return value_of<ThreadState>(kThreadStates, word);
}

std::string_view name_of(LockAct act) { return word_of(kLockActs, act); }
std::optional<LockAct> parse_lock_act(std::string_view word) { return value_of<LockAct>(kLockActs, word); }

std::string_view name_of(FutexAct act) { return word_of(kFutexActs, act); }
std::optional<FutexAct> parse_futex_act(std::string_view word) { return value_of<FutexAct>(kFutexActs, word); }

std::string_view name_of(StepAct act) { return word_of(kStepActs, act); }
std::optional<StepAct> parse_step_act(std::string_view word) { return value_of<StepAct>(kStepActs, word); }

std::string_view name_of(SyscallAct act) { return word_of(kSyscallActs, act); }
std::optional<SyscallAct> parse_syscall_act(std::string_view word) { return value_of<SyscallAct>(kSyscallActs, word); }

std::string_view name_of(TracePlatform platform) { return word_of(kPlatforms, platform); }
std::optional<TracePlatform> parse_platform(std::string_view word) { return value_of<TracePlatform>(kPlatforms, word); }

}  // namespace lockstep::trace
