// What a platform-generic workload (this folder) offers its runners: the simulator's adapter
// (sim/exec/workload_adapter.hpp) and the native runner (driver/workload_rows.hpp). The
// optional hooks are declared, not discovered: a workload states which it has in kHooks, and
// the concept checks both ways at compile time. A hook declared but misspelled, a hook
// defined but not declared, or a runner that asks for a hook under another name does not
// compile; before, a renamed `at_quiescence` quietly turned lost wakeups into deadlocks.
#pragma once

#include <concepts>
#include <functional>
#include <optional>

#include "core/workloads/metrics.hpp"
#include "core/workloads/program.hpp"
#include "core/workloads/spawn.hpp"

namespace lockstep {

struct WorkloadHooks {
  // std::optional<program::Finding> reached() const: which `exists` outcome the final
  // state is (thread programs).
  bool reached = false;
  // std::optional<program::Finding> at_quiescence(const std::function<bool(P::Thread)>&
  // sleeping) const: why the threads that cannot run wait (a lost wakeup), when it knows.
  bool at_quiescence = false;
  // WorkloadMetrics metrics() const: the run's figures (operations, rates).
  bool metrics = false;
};

namespace detail {
template <class W>
concept HasReached = requires(const W& w) {
  { w.reached() } -> std::same_as<std::optional<program::Finding>>;
};
template <class W, class Thread>
concept HasAtQuiescence = requires(const W& w, const std::function<bool(Thread)>& sleeping) {
  { w.at_quiescence(sleeping) } -> std::same_as<std::optional<program::Finding>>;
};
template <class W>
concept HasMetrics = requires(const W& w) {
  { w.metrics() } -> std::same_as<WorkloadMetrics>;
};
}  // namespace detail

// W runs on platform threads of handle type Thread (P::Thread).
template <class W, class Thread>
concept Workload = requires(W& w, const W& cw, const SpawnFn& spawn) {
  { W::kHooks } -> std::convertible_to<WorkloadHooks>;
  { w.setup(spawn) } -> std::same_as<void>;
  { cw.check() } -> std::same_as<void>;
}
&&(W::kHooks.reached == detail::HasReached<W>)&&(W::kHooks.at_quiescence ==
                                                 detail::HasAtQuiescence<W, Thread>)&&(W::kHooks.metrics ==
                                                                                       detail::HasMetrics<W>);

}  // namespace lockstep
