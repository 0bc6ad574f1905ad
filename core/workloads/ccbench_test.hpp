// ccbench's tests, as both of lockstep's ccbench runs do them (the simulated one in
// sim/machine/ccbench.hpp, the native one in native/probes/ccbench_probe.hpp): the state one or
// more holders leave a cache line in, and the operation another CPU then times on it
// (T. David, R. Guerraoui, V. Trigonakis, "Everything you always wanted to know about
// synchronization but were afraid to ask", SOSP 2013; github.com/trigonak/ccbench:
// STORE_ON_MODIFIED, LOAD_FROM_SHARED, CAS on modified lines, ...). One definition of what
// each holder does and what the timed operation is, over any atomic word with std::atomic's
// interface (P::Atomic in the simulator, std::atomic natively), so both sides run the same test.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace lockstep {

// The line's state before the timed operation, as its holders leave it:
//   modified:  the first holder stores to it;
//   exclusive: the first holder loads it (no one else has it);
//   shared:    every holder loads it in turn (two at least; under MESIF the last one holds
//              it Forward);
//   owned:     the first holder stores, the others load (MOESI: the writer keeps it Owned);
//   invalid:   no one touches it: it is in memory only.
enum class LineState : std::uint8_t { modified, exclusive, shared, owned, invalid };
enum class CcOp : std::uint8_t { load, store, cas, fai, tas, swap };

inline constexpr std::array<std::string_view, 5> kLineStateNames{"modified", "exclusive", "shared", "owned", "invalid"};
inline constexpr std::array<std::string_view, 6> kCcOpNames{"load", "store", "cas", "fai", "tas", "swap"};

constexpr std::string_view name_of(LineState s) { return kLineStateNames[static_cast<std::size_t>(s)]; }
constexpr std::string_view name_of(CcOp op) { return kCcOpNames[static_cast<std::size_t>(op)]; }

constexpr std::optional<LineState> parse_line_state(std::string_view s) {
  for (std::size_t i = 0; i < kLineStateNames.size(); ++i)
    if (kLineStateNames[i] == s) return static_cast<LineState>(i);
  return std::nullopt;
}

constexpr std::optional<CcOp> parse_cc_op(std::string_view s) {
  for (std::size_t i = 0; i < kCcOpNames.size(); ++i)
    if (kCcOpNames[i] == s) return static_cast<CcOp>(i);
  return std::nullopt;
}

// Holder `i`'s part in putting a fresh line (value 0) into `state`.
template <typename Word>
void ccbench_hold(Word& line, LineState state, std::size_t i) {
  switch (state) {
    case LineState::modified:
      line.store(1, std::memory_order_relaxed);
      break;
    case LineState::exclusive:
    case LineState::shared:
      (void)line.load(std::memory_order_relaxed);
      break;
    case LineState::owned:
      if (i == 0) {
        line.store(1, std::memory_order_relaxed);
      } else {
        (void)line.load(std::memory_order_relaxed);
      }
      break;
    case LineState::invalid:
      break;
  }
}

// The timed operation. CAS expects the value the holders left, so it succeeds (ccbench times
// a successful CAS); a CAS that fails says the line was not in the state the test meant.
template <typename Word>
void ccbench_operate(Word& line, LineState state, CcOp op) {
  const std::uint64_t value = state == LineState::modified || state == LineState::owned ? 1 : 0;
  switch (op) {
    case CcOp::load:
      (void)line.load(std::memory_order_relaxed);
      break;
    case CcOp::store:
      line.store(2, std::memory_order_relaxed);
      break;
    case CcOp::cas: {
      std::uint64_t expected = value;
      if (!line.compare_exchange_strong(expected, value + 1, std::memory_order_acq_rel))
        throw std::logic_error("ccbench: the CAS found another value than its holders left");
      break;
    }
    case CcOp::fai:
      (void)line.fetch_add(1, std::memory_order_acq_rel);
      break;
    case CcOp::tas:
      (void)line.exchange(1, std::memory_order_acq_rel);
      break;
    case CcOp::swap:
      (void)line.exchange(value + 7, std::memory_order_acq_rel);
      break;
  }
}

}  // namespace lockstep
