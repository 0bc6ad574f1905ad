// The built-in properties, declared once: each name, who reports it, which scenarios may ask
// for it and what a violation means. The designs and the engine report violations by these
// names (P::violation(property::mutual_exclusion, ...)); the scenario loader, `lockstep list`
// and the workload kinds read the table, and a test holds docs/scenarios.md's table of
// properties to it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace lockstep {

namespace property {
inline constexpr std::string_view assertion = "assertion";
inline constexpr std::string_view deadlock = "deadlock";
inline constexpr std::string_view lost_wakeup = "lost_wakeup";
inline constexpr std::string_view bound_exceeded = "bound_exceeded";
inline constexpr std::string_view invariant = "invariant";
inline constexpr std::string_view data_race = "data_race";
inline constexpr std::string_view mutual_exclusion = "mutual_exclusion";
inline constexpr std::string_view lost_update = "lost_update";
inline constexpr std::string_view futex_semantics = "futex_semantics";
inline constexpr std::string_view condvar_mutex = "condvar_mutex";
inline constexpr std::string_view offset_not_torn = "offset_not_torn";
inline constexpr std::string_view reads_unique = "reads_unique";
inline constexpr std::string_view no_lost_write = "no_lost_write";
inline constexpr std::string_view writes_not_interleaved = "writes_not_interleaved";
inline constexpr std::string_view reads_atomic = "reads_atomic";
}  // namespace property

// Which scenarios may name a property:
//   any_workload: every scenario (what any execution can fail, or an opt-in check);
//   own:          the workloads whose row lists it (spec/workload_kinds.cpp).
enum class PropertyScope : std::uint8_t { any_workload, own };

struct PropertyInfo {
  std::string_view name;
  PropertyScope scope;
  // On when a scenario lists no properties (for its workload, or anywhere for any_workload).
  // data_race is opt-in: tracking happens-before costs.
  bool by_default;
  // No thread program's final condition may take the name. A property only one non-program
  // workload reports (counter-sharing's lost_update) leaves the name free for programs.
  bool reserved;
  std::string_view checked_for;  // docs/scenarios.md's "checked for" column
  std::string_view violated_when;
};

inline constexpr std::array<PropertyInfo, 15> kProperties{{
    {property::assertion, PropertyScope::own, true, true, "thread programs", "an `assert` op finds its expression 0"},
    {property::deadlock, PropertyScope::any_workload, true, true, "all",
     "the execution stops with a thread unfinished and none able to run"},
    {property::lost_wakeup, PropertyScope::any_workload, true, true, "all (found in thread programs)",
     "a deadlock that is a lost wakeup, below"},
    {property::bound_exceeded, PropertyScope::any_workload, true, true, "all",
     "a `while` runs past its `max`, or an execution past `strategy.max_steps`"},
    {property::invariant, PropertyScope::any_workload, true, true, "all; always on",
     "a design's own assumption fails (`P::invariant`): a bug in the design or the model"},
    {property::data_race, PropertyScope::any_workload, false, true, "all; opt-in", "two plain accesses race, below"},
    {property::mutual_exclusion, PropertyScope::own, true, true, "lock-counter",
     "the final count is not `threads * iterations`"},
    {property::lost_update, PropertyScope::own, true, false, "counter-sharing",
     "the counters do not add up to `threads * iterations`"},
    {property::futex_semantics, PropertyScope::own, true, true, "the futex workloads",
     "a wait or wake breaks what futex(2) promises (docs/futex.md)"},
    {property::condvar_mutex, PropertyScope::own, true, true, "thread programs",
     "a condition variable is waited on with a mutex other than its own (core/usync/condvar.hpp)"},
    {property::offset_not_torn, PropertyScope::own, true, true, "fileio", "docs/fileio.md, \"Properties\""},
    {property::reads_unique, PropertyScope::own, true, true, "fileio", "docs/fileio.md, \"Properties\""},
    {property::no_lost_write, PropertyScope::own, true, true, "fileio", "docs/fileio.md, \"Properties\""},
    {property::writes_not_interleaved, PropertyScope::own, true, true, "fileio", "docs/fileio.md, \"Properties\""},
    {property::reads_atomic, PropertyScope::own, true, true, "fileio", "docs/fileio.md, \"Properties\""},
}};

constexpr const PropertyInfo* find_property(std::string_view name) {
  for (const PropertyInfo& p : kProperties)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace lockstep
