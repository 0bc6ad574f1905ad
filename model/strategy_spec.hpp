// How a scenario asks to be explored (docs/scenarios.md, "strategy"): the kind of search and
// its bounds. The scenario loader fills it in; model/exploration.hpp turns it into a search.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace lockstep::model {

// smt is not an exploration: the driver asks the axiomatic checker (axiomatic/) instead.
enum class StrategyKind : std::uint8_t { timed, random, dfs, bounded, pct, naive, smt };

// A strategy's options beyond `kind` and `max_steps`, as bits: which of them it takes.
enum StrategyKey : std::uint16_t {
  key_seed = 1 << 0,
  key_executions = 1 << 1,
  key_preemption_bound = 1 << 2,
  key_delay_bound = 1 << 3,
  key_depth = 1 << 4,
  key_choice_points = 1 << 5,
  key_workers = 1 << 6,
  key_minimize = 1 << 7,
  key_unroll = 1 << 8,
  key_run_ahead = 1 << 9,
};

// The option names, as a scenario spells them, with their bits.
inline constexpr std::array<std::pair<std::string_view, std::uint16_t>, 10> kStrategyKeys{{
    {"seed", key_seed},
    {"executions", key_executions},
    {"preemption_bound", key_preemption_bound},
    {"delay_bound", key_delay_bound},
    {"depth", key_depth},
    {"choice_points", key_choice_points},
    {"workers", key_workers},
    {"minimize", key_minimize},
    {"unroll", key_unroll},
    {"run_ahead", key_run_ahead},
}};

// Each strategy declared once: its name in scenarios and `lockstep list`, what it does, the
// options it takes (a key it does not take is an error in a scenario), and whether it
// explores (many executions under the scheduling oracle) or exhausts a space.
struct StrategyInfo {
  StrategyKind kind;
  std::string_view name;
  std::uint16_t keys;  // StrategyKey bits
  bool exhaustive;     // dfs, bounded, naive: every execution (within the bound), or says not
  std::string_view summary;
};

inline constexpr std::array<StrategyInfo, 7> kStrategies{{
    {StrategyKind::timed, "timed", key_seed | key_run_ahead, false,
     "one execution, earliest virtual time first, ties broken by the seed"},
    {StrategyKind::random, "random", key_seed | key_executions | key_workers | key_minimize, false,
     "each execution under a uniformly random schedule"},
    {StrategyKind::dfs, "dfs", key_executions | key_workers | key_minimize, true,
     "every execution, one per equivalence class where it can (source-set DPOR with sleep sets)"},
    {StrategyKind::bounded, "bounded",
     key_executions | key_preemption_bound | key_delay_bound | key_workers | key_minimize, true,
     "every execution within a preemption or delay bound, depth first"},
    {StrategyKind::pct, "pct", key_seed | key_executions | key_depth | key_choice_points | key_workers | key_minimize,
     false, "probabilistic concurrency testing with bug depth `depth`"},
    {StrategyKind::naive, "naive", key_executions | key_minimize, true,
     "every interleaving with no reduction: the reference the others are tested against"},
    {StrategyKind::smt, "smt", key_unroll, false,
     "thread programs only, decided by Z3 over the program's events (no execution)"},
}};

constexpr const StrategyInfo& info_of(StrategyKind kind) { return kStrategies[static_cast<std::size_t>(kind)]; }
const char* name_of(StrategyKind kind);

struct StrategySpec {
  StrategyKind kind = StrategyKind::random;
  std::uint64_t seed = 1;
  // random, pct: executions to run; dfs, bounded, naive: the most to run before giving up on
  // exhausting the space (the result then says exhaustive: false).
  std::uint64_t executions = 1000;
  std::uint64_t max_steps = 1'000'000;
  // bounded: exactly one of these.
  std::optional<unsigned> preemption_bound;
  std::optional<unsigned> delay_bound;
  unsigned depth = 3;               // pct: the bug depth d
  std::uint64_t choice_points = 0;  // pct: k; 0 = measured from a few random executions
  unsigned workers = 1;             // parallel search (random, pct, dfs, bounded)
  bool minimize = true;             // minimize a counterexample before reporting it
  unsigned unroll = 0;              // smt: `while` iterations encoded (0: each loop's own bound)
  bool run_ahead = true;            // timed: quiet hits run ahead (sim::EngineLimits::run_ahead)
};

}  // namespace lockstep::model
