// Named futex table designs: the seed's four (the futex-scaling article, docs/sources.md section 1: "The figure below
// ... shows the throughput of uaddr hashing for the different optimizations") and the kernels they became. A scenario
// names one (`design: {futex: both}`) and may override any field.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/futex/futex_config.hpp"

namespace lockstep::futex {

struct NamedDesign {
  std::string_view name;
  FutexConfig config;
  std::string_view source;
};

// The seed's four designs share everything but sizing and layout: the x86 ticket spinlock
// of the time, jhash2, private futexes, and no wake fast path (b0c29f79 came after).
inline constexpr std::array<NamedDesign, 9> kNamedDesigns{{
    {"baseline",
     {Sizing::global_256, Placement::node0, Layout::packed, SpinlockKind::ticket, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::none},
     "Linux 3.13: 256 global buckets, packed, on one node (seed)"},
    {"aligned",
     {Sizing::global_256, Placement::node0, Layout::aligned, SpinlockKind::ticket, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::none},
     "the seed's 'cacheline aligning the hash bucket structure' alone"},
    {"numa",
     {Sizing::per_node, Placement::node0, Layout::packed, SpinlockKind::ticket, HashKind::jhash2, KeyKind::private_key,
      WakeFastpath::none},
     "the seed's larger, NUMA-aware table alone: 256 buckets per CPU split into per-node tables"},
    {"both",
     {Sizing::per_node, Placement::node0, Layout::aligned, SpinlockKind::ticket, HashKind::jhash2, KeyKind::private_key,
      WakeFastpath::none},
     "the seed's combination of both"},
    {"linux-3.14",
     {Sizing::per_cpu, Placement::interleave, Layout::aligned, SpinlockKind::ticket, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::counter},
     "a52b89ebb6d4 + the waiter counter: 256 * ncpus buckets, aligned, spread over the nodes"},
    {"linux-6.16-private",
     {Sizing::process_private, Placement::node0, Layout::aligned, SpinlockKind::mcs, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::counter},
     "6.16: the per-process private table, queued spinlocks (qspinlock is MCS-based)"},
    {"linux-6.16",
     {Sizing::process_private, Placement::node0, Layout::aligned, SpinlockKind::mcs, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::counter, ProcessRef::shared, true, 0},
     "6.16 as merged: the private table pinned by one rcuref per process on every operation, and each bucket's "
     "pointer back to its table read as the reference is dropped"},
    {"linux-6.17",
     {Sizing::process_private, Placement::node0, Layout::aligned, SpinlockKind::mcs, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::counter, ProcessRef::per_cpu, true, 0},
     "6.17: the reference made per-CPU; the latest merged kernel as far as these fields go ([guess]: no later "
     "merged change to them is modelled)"},
    {"linux-6.17-split",
     {Sizing::process_private, Placement::node0, Layout::split, SpinlockKind::mcs, HashKind::jhash2,
      KeyKind::private_key, WakeFastpath::counter, ProcessRef::per_cpu, true, 0},
     "6.17 with the 2026 RFC 'futex: avoid false sharing between hb->chain and the bucket lock' (B. Leitao, "
     "LKML 2026-06-05, not merged): each bucket's wait list on a line apart from its lock and waiter count"},
}};

inline std::optional<NamedDesign> named_design(std::string_view name) {
  for (const NamedDesign& d : kNamedDesigns)
    if (d.name == name) return d;
  return std::nullopt;
}

}  // namespace lockstep::futex
