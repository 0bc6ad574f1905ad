// What a futex workload needs from "a futex": wait(word, expected) and wake(word, n) with the
// system call's semantics. FutexTable<P> is one (the designs, simulated or native); natively
// the kernel's futex(2) and libstdc++'s std::atomic wait/notify are others (native/), so the
// same workload compares our tables with what the host really offers.
//
// Workloads take the backend as a template parameter, not through a virtual interface: the
// simulator runs billions of these calls, and the table's call must stay a direct one.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "core/futex/futex_table.hpp"

namespace lockstep::futex {

// wait: EAGAIN when the word does not hold `expected` (checked atomically with going to
// sleep), ok after a wakeup, which may be spurious: callers re-check their condition.
// wake: wakes up to `count` sleepers of the word; `woken` is how many, where the backend
// can tell (std::atomic's notify cannot, and reports 0).
template <class B, class Word>
concept FutexBackend = requires(B& backend, Word& word, std::uint32_t expected, int count) {
  { backend.wait(word, expected) } -> std::same_as<FutexError>;
  { backend.wake(word, count) } -> std::same_as<WakeResult>;
};

// A backend that is one of our tables: it has a configuration, buckets and a lock that the
// wake fast path may skip, which workloads then report.
template <class B>
concept TableBackend = requires(const B& backend) {
  { backend.config() } -> std::same_as<const FutexConfig&>;
  { backend.buckets_per_table() } -> std::same_as<std::uint32_t>;
  { backend.tables() } -> std::same_as<int>;
};

// Builds a workload's backend in place (tables cannot move): a table is sized for the
// machine and the workload's threads; the host's futexes have nothing to configure.
template <class B>
void emplace_backend(std::optional<B>& slot, const FutexConfig& config, FutexMachine machine, int threads) {
  if constexpr (std::is_constructible_v<B, const FutexConfig&, const FutexMachine&>) {
    machine.threads = threads;
    slot.emplace(config, machine);
  } else {
    slot.emplace();
  }
}

// The `futex` label of a result row: a table's configuration, or the host backend's name.
template <class B>
std::string describe_backend(const B& backend) {
  if constexpr (TableBackend<B>) {
    return describe(backend.config());
  } else {
    return std::string(B::kDescription);
  }
}

}  // namespace lockstep::futex
