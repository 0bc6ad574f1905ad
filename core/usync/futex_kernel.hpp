// What a user-space protocol needs from "the kernel": the three futex(2) operations of
// FutexTable<P> (core/futex/futex_table.hpp). The protocols in core/usync/ take the kernel
// as a type parameter so that a test or a workload can slip a counting or tracing wrapper
// between them and the table without the protocol knowing.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"

namespace lockstep::usync {

template <class K, class P>
concept FutexKernel = requires(K kernel, typename P::template Atomic<std::uint32_t>& word, std::uint32_t value,
                               int count, std::optional<std::uint32_t> expected) {
  { kernel.wait(word, value) } -> std::same_as<futex::FutexError>;
  { kernel.wake(word, count) } -> std::same_as<futex::WakeResult>;
  { kernel.requeue(word, word, count, count, expected) } -> std::same_as<futex::RequeueResult>;
};

// A futex word as the protocols see it: 32 bits, in platform memory.
template <Platform P>
using FutexWord = typename P::template Atomic<std::uint32_t>;

}  // namespace lockstep::usync
