// The spinlock kinds a design can be configured with, and a dispatch over them. Designs that
// take a lock kind as a run-time parameter (scenario files) use AnySpinlock; designs fixed at
// compile time use the lock class directly.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <variant>

#include "core/platform.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/ttas_lock.hpp"

namespace lockstep {

enum class SpinlockKind : std::uint8_t { ticket, ttas };

inline constexpr std::array<std::string_view, 2> kSpinlockNames{"ticket", "ttas"};

constexpr std::string_view name_of(SpinlockKind kind) {
  return kSpinlockNames[static_cast<std::size_t>(kind)];
}

constexpr std::optional<SpinlockKind> spinlock_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kSpinlockNames.size(); ++i)
    if (kSpinlockNames[i] == name) return static_cast<SpinlockKind>(i);
  return std::nullopt;
}

template <Platform P>
class AnySpinlock {
 public:
  explicit AnySpinlock(SpinlockKind kind) {
    if (kind == SpinlockKind::ticket) lock_.template emplace<TicketLock<P>>();
  }
  void lock() {
    std::visit([](auto& l) { l.lock(); }, lock_);
  }
  void unlock() {
    std::visit([](auto& l) { l.unlock(); }, lock_);
  }
  bool is_locked() const {
    return std::visit([](const auto& l) { return l.is_locked(); }, lock_);
  }

 private:
  std::variant<TtasLock<P>, TicketLock<P>> lock_;
};

}  // namespace lockstep
