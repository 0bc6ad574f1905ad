// header-scan: the seed's case for coloured allocation (docs/os.md, "Coloured allocation"):
// many network buffers of a power-of-two size, of which the code touches mostly the first
// line, the header. T threads each take `buffers / T` buffers from a UMA-style zone
// (core/alloc/uma_zone.hpp) for their own node, write each header once, then read every
// header of theirs `passes` times over, timing the reads after the first pass. Without
// colouring the headers fall on 1/(item / line) of the cache's sets and evict each other
// long before the cache is full; with it they spread over every set.
//
// The zone's kegs, by `keg`: `small` (4 KiB pages), `large` (2 MiB pages), or
// `large-fallback` (`large_pages` 2 MiB pages per node, then 4 KiB ones); `numa: true` gives
// each node kegs of its own, `false` puts every buffer on node 0.
//
// Metrics: header_ns (one header read, after the first pass), colours (distinct start
// lines, modulo item / line, among the buffers), bytes_per_buffer (with padding and
// the slabs' waste), large_share (buffers from large pages), remote_share (buffers on
// another node than their thread's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/alloc/uma_zone.hpp"
#include "core/platform.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

enum class KegKind : std::uint8_t { small, large, large_fallback };
inline constexpr std::array<std::string_view, 3> kKegKindNames{"small", "large", "large-fallback"};

struct HeaderScanParams {
  int buffers = 1024;
  std::size_t item_bytes = 2048;
  bool colour = false;
  KegKind keg = KegKind::large;
  std::size_t large_pages = 1;  // per node, with large-fallback
  bool numa = true;
  int threads = 1;
  int cpus = 1;  // thread i runs on CPU i % cpus
  int passes = 4;
};

template <Platform P>
class HeaderScan {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  explicit HeaderScan(const HeaderScanParams& params)
      : p_(params),
        zone_(params.item_bytes),
        mine_(static_cast<std::size_t>(params.threads)),
        scan_ns_(static_cast<std::size_t>(params.threads), 0) {}
  HeaderScan(const HeaderScan&) = delete;
  HeaderScan& operator=(const HeaderScan&) = delete;

  void setup(const SpawnFn& spawn) {
    std::set<NodeId> nodes;
    for (int i = 0; i < p_.threads; ++i) nodes.insert(p_.numa ? P::node_of(cpu_of(i)) : NodeId{0});
    for (NodeId node : nodes) {
      if (p_.keg != KegKind::small) {
        alloc::KegSpec large{node, alloc::kLargePage, std::numeric_limits<std::size_t>::max(), p_.colour};
        if (p_.keg == KegKind::large_fallback) large.max_slabs = p_.large_pages;
        zone_.add_keg(large);
      }
      if (p_.keg != KegKind::large)
        zone_.add_keg(alloc::KegSpec{node, alloc::kSmallPage, std::numeric_limits<std::size_t>::max(), p_.colour});
    }
    // Buffers are dealt round robin, as a receive ring fills them.
    for (int b = 0; b < p_.buffers; ++b) {
      const int t = b % p_.threads;
      const NodeId home = P::node_of(cpu_of(t));  // the consuming thread's node
      const alloc::Item item = zone_.alloc(p_.numa ? home : NodeId{0});
      mine_[static_cast<std::size_t>(t)].push_back(static_cast<Header*>(item.ptr));
      colours_.insert((item.offset / kCacheLineBytes) % lines_per_item());
      if (zone_.keg(item.keg).spec().slab_bytes == alloc::kLargePage) ++large_;
      if (zone_.keg(item.keg).spec().node != home) ++remote_;
      new (item.ptr) Header();
    }
    for (int t = 0; t < p_.threads; ++t) {
      P::label(mine_[static_cast<std::size_t>(t)].front(), sizeof(Header), fmt::format("t{}.buffer[0].header", t));
      spawn(fmt::format("scan{}", t), cpu_of(t), [this, t] { scan(t); });
    }
  }

  void check() const {}

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("keg", std::string(kKegKindNames[static_cast<std::size_t>(p_.keg)]));
    m.values.emplace_back("buffers", p_.buffers);
    m.values.emplace_back("colours", static_cast<double>(colours_.size()));
    m.values.emplace_back("colour_share", static_cast<double>(colours_.size()) / static_cast<double>(lines_per_item()));
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < zone_.kegs(); ++k) bytes += zone_.keg(k).slabs() * zone_.keg(k).spec().slab_bytes;
    m.values.emplace_back("bytes_per_buffer", static_cast<double>(bytes) / p_.buffers);
    m.values.emplace_back("large_share", static_cast<double>(large_) / p_.buffers);
    m.values.emplace_back("remote_share", static_cast<double>(remote_) / p_.buffers);
    std::uint64_t reads = 0;
    std::uint64_t ns = 0;
    for (int t = 0; t < p_.threads; ++t) {
      reads += mine_[static_cast<std::size_t>(t)].size() * static_cast<std::uint64_t>(p_.passes - 1);
      ns += scan_ns_[static_cast<std::size_t>(t)];
    }
    m.values.emplace_back("header_reads", static_cast<double>(reads));
    m.values.emplace_back("header_ns", reads == 0 ? 0 : static_cast<double>(ns) / static_cast<double>(reads));
    return m;
  }

 private:
  // A buffer's first line: what a packet's receive path reads.
  struct Header {
    typename P::template Atomic<std::uint64_t> length{0};
  };

  CpuId cpu_of(int t) const { return t % p_.cpus; }
  std::size_t lines_per_item() const { return std::max<std::size_t>(1, p_.item_bytes / kCacheLineBytes); }

  void scan(int t) {
    const std::vector<Header*>& mine = mine_[static_cast<std::size_t>(t)];
    for (Header* h : mine) h->length.store(60, std::memory_order_relaxed);  // a minimal frame, written on receive
    std::uint64_t sum = 0;
    std::uint64_t start = 0;
    for (int pass = 0; pass < p_.passes; ++pass) {
      if (pass == 1) start = P::now();  // the first pass warms the caches
      for (Header* h : mine) sum += h->length.load(std::memory_order_relaxed);
    }
    scan_ns_[static_cast<std::size_t>(t)] = P::now() - start;
    if (sum != 60ULL * mine.size() * static_cast<std::uint64_t>(p_.passes))
      throw std::logic_error("header-scan: a header read back what was not written");
  }

  HeaderScanParams p_;
  alloc::Zone<P> zone_;
  std::vector<std::vector<Header*>> mine_;
  std::vector<std::uint64_t> scan_ns_;
  std::set<std::size_t> colours_;
  std::size_t large_ = 0;
  std::size_t remote_ = 0;
};

}  // namespace lockstep
