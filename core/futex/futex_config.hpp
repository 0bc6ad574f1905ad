// The futex hash table's design variants, each one a field of FutexConfig. Every value traces
// to a fact in docs/sources.md section 1 ("REF") or the futex-scaling article described there
// ("seed"); the comments say which.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/sync/spinlock.hpp"

namespace lockstep::futex {

// How many buckets, and how many tables.
enum class Sizing : std::uint8_t {
  global_256,       // before 3.14: one table of 256 buckets for the whole machine (seed, REF)
  per_cpu,          // 3.14 (a52b89ebb6d4): roundup_pow_of_two(256 * ncpus) buckets (seed, REF)
  per_node,         // FUTEX2_NUMA (6.16+): one table per node, roundup_pow_of_two(max(4, 256 * ncpus / nnodes))
  process_private,  // 6.16: per-process private table, clamp(roundup_pow_of_two(4 * min(threads, cpus)), 16, global)
};
inline constexpr std::array<std::string_view, 4> kSizingNames{"global-256", "per-cpu", "per-node", "private"};

// Where a single table lives (per-node tables always live on their own nodes).
enum class Placement : std::uint8_t {
  node0,       // before 3.14 the table was allocated on one node (seed: "allocated on a single NUMA node")
  interleave,  // 3.14's alloc_large_system_hash spreads a large table page by page over the nodes
};
inline constexpr std::array<std::string_view, 2> kPlacementNames{"node0", "interleave"};

// Bucket layout in memory.
enum class Layout : std::uint8_t {
  packed,   // before 3.14: {spinlock; plist_head} unaligned, several buckets share a line (seed)
  aligned,  // 3.14: ____cacheline_aligned_in_smp, one bucket per line (seed, REF)
  // Aligned, with the wait list (its head and tail) on a second line of its own, apart from
  // the lock and the waiter count: B. Leitao's RFC "futex: avoid false sharing between
  // hb->chain and the bucket lock" (LKML, 2026-06-05). Lock contenders and the lockless
  // waiter-count readers no longer lose the line each time the holder edits the list, and a
  // handover moves one line, not the list with it.
  split,
};
inline constexpr std::array<std::string_view, 3> kLayoutNames{"packed", "aligned", "split"};

// How a key is hashed to a bucket.
enum class HashKind : std::uint8_t {
  jhash2,     // Linux: jhash2 over the key's words (REF)
  fibonacci,  // multiplicative hashing by 2^64 / phi, as several user-space parking lots do
};
inline constexpr std::array<std::string_view, 2> kHashNames{"jhash2", "fibonacci"};

// Whose futex: private keys are (address space, address); shared ones (object, offset) and
// need a page lookup first, which is why FUTEX_PRIVATE_FLAG exists (REF section 1).
enum class KeyKind : std::uint8_t { private_key, shared_key };
inline constexpr std::array<std::string_view, 2> kKeyNames{"private", "shared"};

// When futex_wake may skip the bucket lock (REF section 1, "Wake fast path").
enum class WakeFastpath : std::uint8_t {
  none,               // before b0c29f79: always lock the bucket
  empty_list,         // b0c29f79's first version: skip when the list is empty and the lock is free
  counter,            // today: a waiter counter, smp_mb (A) after the increment, (B) before the read
  counter_missing_b,  // 76835b0ebf8a: private futexes lost (B) on the waker's side (lost wakeup)
  // The waiter's (A) removed instead: the increment of the counter is a plain atomic_inc with
  // no smp_mb__after_atomic. REF: on x86 the increment is a locked instruction, which drains
  // the store buffer anyway, so this variant is still correct under x86-TSO; only weaker
  // machines (arm64, POWER) would lose a wakeup.
  counter_missing_a,
};
inline constexpr std::array<std::string_view, 5> kFastpathNames{"none", "empty-list", "counter", "counter-missing-b",
                                                                "counter-missing-a"};

// The per-process reference an operation on a private table takes and drops (Linux 6.16+:
// the table can be replaced while the process runs, so each operation pins the one it uses).
enum class ProcessRef : std::uint8_t {
  none,     // a global table, or the seed's kernels: nothing to pin
  shared,   // 6.16: one rcuref per process, a locked increment and decrement on one line
  per_cpu,  // 6.17: a per-CPU reference count, each CPU's on a line of its own
};
inline constexpr std::array<std::string_view, 3> kProcessRefNames{"none", "shared", "per-cpu"};

struct FutexConfig {
  Sizing sizing = Sizing::per_cpu;
  Placement placement = Placement::node0;
  Layout layout = Layout::aligned;
  SpinlockKind lock = SpinlockKind::ticket;
  HashKind hash = HashKind::jhash2;
  KeyKind key = KeyKind::private_key;
  WakeFastpath fastpath = WakeFastpath::counter;
  ProcessRef ref = ProcessRef::none;
  // 6.16: each bucket points back to its private table, and an operation reads the pointer
  // when it drops its reference, after it unlocked the bucket.
  bool back_pointer = false;
  // The private table's buckets, fixed (`perf bench futex hash -b N`, prctl
  // PR_FUTEX_HASH_SET_SLOTS); 0: sized by the process's threads, and grown with them.
  std::uint32_t private_buckets = 0;
};

// Linux's priority scale: lower is more urgent; real-time tasks are 0..99, normal ones 120.
inline constexpr int kDefaultPriority = 120;

// The errors futex(2) returns that the designs here can produce.
enum class FutexError : std::uint8_t { ok, eagain, timedout };

template <std::size_t N>
constexpr std::string_view enum_name(const std::array<std::string_view, N>& names, auto value) {
  return names[static_cast<std::size_t>(value)];
}

// "per-cpu/aligned/ticket/jhash2/private/counter", for result rows and traces.
inline std::string describe(const FutexConfig& c) {
  std::string out;
  for (std::string_view part : {enum_name(kSizingNames, c.sizing), enum_name(kPlacementNames, c.placement),
                                enum_name(kLayoutNames, c.layout), name_of(c.lock), enum_name(kHashNames, c.hash),
                                enum_name(kKeyNames, c.key), enum_name(kFastpathNames, c.fastpath)}) {
    if (!out.empty()) out += '/';
    out += part;
  }
  // The fields 6.16 added show only where set, so the earlier designs keep their names.
  if (c.ref != ProcessRef::none) out += fmt::format("/ref-{}", enum_name(kProcessRefNames, c.ref));
  if (c.back_pointer) out += "/back-pointer";
  if (c.private_buckets != 0) out += fmt::format("/b{}", c.private_buckets);
  return out;
}

}  // namespace lockstep::futex
