// The spinlock kinds a design can be configured with, and a dispatch over them. Designs that
// take a lock kind as a run-time parameter (scenario files) use AnySpinlock; designs fixed at
// compile time use the lock class directly. Either way a waiter brings a Node (spin_guard.hpp).
#pragma once

#include <array>
#include <concepts>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include <source_location>

#include "core/platform.hpp"
#include "core/sync/clh_lock.hpp"
#include "core/sync/mcs_lock.hpp"
#include "core/sync/ticket_lock.hpp"
#include "core/sync/ttas_lock.hpp"

namespace lockstep {

enum class SpinlockKind : std::uint8_t { ticket, ttas, mcs, tas, clh };

inline constexpr std::array<std::string_view, 5> kSpinlockNames{"ticket", "ttas", "mcs", "tas", "clh"};

constexpr std::string_view name_of(SpinlockKind kind) { return kSpinlockNames[static_cast<std::size_t>(kind)]; }

constexpr std::optional<SpinlockKind> spinlock_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kSpinlockNames.size(); ++i)
    if (kSpinlockNames[i] == name) return static_cast<SpinlockKind>(i);
  return std::nullopt;
}

template <Platform P>
class AnySpinlock {
 public:
  using Platform = P;
  // Large enough for every kind: the MCS and CLH locks queue it (CLH's for the lock's whole
  // life, clh_lock.hpp), the others ignore it.
  using Node = ClhNode<P>;

  explicit AnySpinlock(SpinlockKind kind) {
    switch (kind) {
      case SpinlockKind::ticket:
        lock_.template emplace<TicketLock<P>>();
        return;
      case SpinlockKind::ttas:
        lock_.template emplace<TtasLock<P>>();
        return;
      case SpinlockKind::mcs:
        lock_.template emplace<McsLock<P>>();
        return;
      case SpinlockKind::tas:
        lock_.template emplace<TasLock<P>>();
        return;
      case SpinlockKind::clh:
        lock_.template emplace<ClhLock<P>>();
        return;
    }
  }
  void lock(Node& node, std::source_location site = std::source_location::current()) {
    std::visit([&node, &site](auto& l) { l.lock(node_for(l, node), site); }, lock_);
  }
  bool try_lock(Node& node, std::source_location site = std::source_location::current()) {
    return std::visit([&node, &site](auto& l) { return l.try_lock(node_for(l, node), site); }, lock_);
  }
  void unlock(Node& node) {
    std::visit([&node](auto& l) { l.unlock(node_for(l, node)); }, lock_);
  }
  bool is_locked() const {
    return std::visit([](const auto& l) { return l.is_locked(); }, lock_);
  }

 private:
  // The node a lock of type L takes: the caller's own for CLH, its MCS part for MCS, a
  // stateless stand-in for the kinds whose Node is empty (nothing is written to it, so sharing one is harmless).
  template <class L>
  static typename L::Node& node_for(L&, Node& node) {
    if constexpr (std::same_as<typename L::Node, Node>) {
      return node;
    } else if constexpr (std::is_base_of_v<typename L::Node, Node>) {
      return node;  // MCS: a ClhNode is an McsNode and one more word
    } else {
      static_assert(std::is_empty_v<typename L::Node>, "only the queue kinds keep state in their node");
      static typename L::Node unused;
      return unused;
    }
  }

  std::variant<TtasLock<P>, TicketLock<P>, McsLock<P>, TasLock<P>, ClhLock<P>> lock_;
};

}  // namespace lockstep
