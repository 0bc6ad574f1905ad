// Arrows between lanes: who woke whom, who handed a lock to whom, and which thread a cache
// line moved from. Derived once per trace from its events; the timeline asks for the ones
// in its window through a filter and a cap, so a dense trace stays readable (capped and
// filterable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gui/model/trace.hpp"

namespace lockstep::view {

enum class FlowKind { wake, lock_handoff, line_transfer };
std::string_view to_string(FlowKind k);

struct Flow {
  FlowKind kind = FlowKind::wake;
  int from = -1;  // thread lanes
  int to = -1;
  std::uint64_t t_from = 0;
  std::uint64_t t_to = 0;
  std::uint64_t addr = 0;   // the lock or the cache line; 0 for a wake
  bool cross_node = false;  // the two ends ran on CPUs of different NUMA nodes (sockets)
};

// Every flow of the trace, sorted by t_from (stably), and the longest one's duration, so a
// window's flows are found by binary search.
struct FlowSet {
  std::vector<Flow> flows;
  std::uint64_t longest_ns = 0;
};

// Derivation:
//  - wake: Trace::wakes.
//  - lock_handoff: a release of a lock followed, as the next acquire of that lock, by
//    another thread's acquire; readers released while others still hold it hand nothing.
//  - line_transfer: an access answered from another core's cache (`src` remote_cache or
//    same_package_core), from the last other thread that wrote that line before it (the
//    dirty copy's owner), or failing that the thread running on the `peer` CPU.
FlowSet derive_flows(const Trace& trace, std::uint64_t line_bytes = 64);

struct FlowFilter {
  bool wake = true;
  bool lock_handoff = true;
  bool line_transfer = true;
  bool cross_node_only = false;  // only flows between sockets
  std::optional<int> thread;     // only flows from or to this thread
  std::optional<std::uint64_t> addr;
  std::size_t cap = 400;  // at most this many drawn
};

struct VisibleFlows {
  std::vector<const Flow*> shown;
  std::size_t matching = 0;  // how many passed the filter in the window (shown.size() <= cap)
};

// The flows that pass the filter and overlap [t0, t1]; when more than the cap, an even,
// deterministic sample of them (every k-th in time order), so density still shows.
VisibleFlows visible_flows(const FlowSet& flows, double t0, double t1, const FlowFilter& filter);

}  // namespace lockstep::view
