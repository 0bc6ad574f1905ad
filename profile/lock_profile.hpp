// Lock profiling (docs/os.md, "Lock profiling"), after FreeBSD's LOCK_PROFILING as Jeff
// Roberson rewrote it (2007-2008; docs/os.md gives the sources): statistics per (file, line,
// lock name) triple, where file:line is where the caller took the lock. Each thread keeps
// ownership records of the locks it waits for and holds; at release a hold is aggregated
// into the table of the CPU it was released on, and the per-CPU tables are merged only for
// display, so recording never touches a shared structure.
//
// The recorder knows nothing of where its times come from: the simulator feeds it virtual
// nanoseconds (exact, and free to the simulated machine: the notes are not steps), a native
// run the host's clock.
#pragma once

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/platform.hpp"

namespace lockstep::profile {

// One (file, line, name) triple's statistics, as displayed.
struct LockProfileEntry {
  std::string file;  // where the lock was taken (the caller of lock())
  std::uint32_t line = 0;
  std::string name;  // the lock's name: its label with array indices folded ("bucket[].lock")
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;  // acquisitions that had to wait
  std::uint64_t hold_total_ns = 0;
  std::uint64_t hold_max_ns = 0;
  std::uint64_t wait_total_ns = 0;
  std::uint64_t wait_max_ns = 0;
  double hold_avg_ns() const { return acquisitions == 0 ? 0 : static_cast<double>(hold_total_ns) / acquisitions; }
  double wait_avg_ns() const { return acquisitions == 0 ? 0 : static_cast<double>(wait_total_ns) / acquisitions; }
  bool operator==(const LockProfileEntry&) const = default;
};

// The merged table, worst first: most total wait, then most total hold, then by site.
struct LockProfile {
  std::vector<LockProfileEntry> entries;
  bool empty() const { return entries.empty(); }
};

class LockProfiler {
 public:
  // What a lock's address is called (the design's label), for display.
  using Namer = std::function<std::string(std::uint64_t addr)>;

  // A note from the lock (P::note_lock) on `thread`, running on `cpu`, at `now_ns`.
  void note(std::uint32_t thread, std::uint32_t cpu, std::uint64_t lock, LockNote what, bool shared,
            const std::source_location& site, std::uint64_t now_ns) {
    note(thread, cpu, lock, what, shared, site.file_name(), site.line(), now_ns);
  }
  // The same with the site as a file and a line (a trace's `site`, read back by the viewer);
  // `file` must outlive the recorder.
  void note(std::uint32_t thread, std::uint32_t cpu, std::uint64_t lock, LockNote what, bool shared, const char* file,
            std::uint32_t line, std::uint64_t now_ns);

  // Adds another recorder's tables to this one's (per-thread recorders of a native run).
  void absorb(const LockProfiler& other);

  // The per-CPU tables merged, named and sorted, times multiplied by `ns_per_unit` (a native
  // run records clock ticks). Holds still open are not counted.
  LockProfile profile(const Namer& name_of, double ns_per_unit = 1.0) const;

  // Acquisitions that no record explains (a release of a lock this thread does not hold, an
  // acquire while already waiting on another): a lock that notes wrongly. Counted, not thrown:
  // the caller reports them with the profile.
  std::uint64_t unmatched() const { return unmatched_; }

 private:
  struct Site {
    const char* file = nullptr;
    std::uint32_t line = 0;
  };
  struct Hold {
    std::uint64_t lock = 0;
    Site site;
    std::uint64_t acquired_ns = 0;
    std::uint64_t waited_ns = 0;
    bool contended = false;
  };
  // A thread's ownership records: the wait in progress, the holds in order of acquisition.
  struct Owner {
    bool waiting = false;
    std::uint64_t wait_lock = 0;
    std::uint64_t wait_start_ns = 0;
    std::vector<Hold> holds;
  };
  struct Key {
    const char* file;
    std::uint32_t line;
    std::uint64_t lock;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.file) ^ (std::hash<std::uint64_t>()(k.lock) * 31 + k.line);
    }
  };
  struct Stats {
    std::uint64_t acquisitions = 0, contended = 0;
    std::uint64_t hold_total = 0, hold_max = 0, wait_total = 0, wait_max = 0;
    void add(const Stats& o);
  };
  using Table = std::unordered_map<Key, Stats, KeyHash>;

  Owner& owner(std::uint32_t thread);
  Table& table(std::uint32_t cpu);

  std::vector<Owner> owners_;
  std::vector<Table> per_cpu_;
  std::uint64_t unmatched_ = 0;
};

// A call site's file relative to the source tree ("core/futex/futex_table_impl.hpp"), as
// profiles and traces show it; files outside the tree are left as they are.
std::string source_relative(const char* file);

// "bucket[14].lock" -> "bucket[].lock": the locks of one array share a row, as FreeBSD's
// share one by their common name.
std::string fold_indices(const std::string& name);

}  // namespace lockstep::profile
