#include "sim/exec/cache_overlap.hpp"

#include <algorithm>
#include <utility>

#include "core/platform.hpp"

namespace lockstep::sim {

void CacheOverlap::record(ThreadId t, std::uint64_t addr, OpKind kind) {
  Line& line = lines_[addr / kCacheLineBytes];
  if (line.writer != kNoThread && line.writer != t && line.toucher != t) {
    const auto [hi, lo] = std::minmax(t, line.writer, [](ThreadId a, ThreadId b) { return a > b; });
    if (counts_.size() <= hi) counts_.resize(hi + 1);
    std::vector<std::uint64_t>& row = counts_[hi];
    if (row.size() <= lo) row.resize(lo + 1, 0);
    ++row[lo];
  }
  line.toucher = t;
  if (kind == OpKind::store || kind == OpKind::rmw || kind == OpKind::plain_store) line.writer = t;
}

std::uint64_t CacheOverlap::between(ThreadId a, ThreadId b) const {
  if (a < b) std::swap(a, b);
  if (a == b || a >= counts_.size() || b >= counts_[a].size()) return 0;
  return counts_[a][b];
}

std::optional<ThreadId> CacheOverlap::partner(ThreadId t) const {
  std::optional<ThreadId> best;
  std::uint64_t most = kSignificant - 1;
  const auto threads = static_cast<ThreadId>(counts_.size());
  for (ThreadId other = 0; other < threads; ++other) {
    const std::uint64_t n = between(t, other);
    if (n > most) {
      most = n;
      best = other;
    }
  }
  return best;
}

}  // namespace lockstep::sim
