// One futex hash table's buckets in platform memory, laid out packed or one per cacheline,
// on one node or interleaved page by page over the nodes (docs/sources.md section 1; the seed's
// "allocated on a single NUMA node" and "cacheline aligning the hash bucket structure").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/futex/futex_bucket.hpp"
#include "core/futex/futex_config.hpp"
#include "core/platform.hpp"

namespace lockstep::futex {

// Bytes a chunk of an interleaved table covers: one page, as vmalloc interleaves.
inline constexpr std::size_t kInterleaveChunkBytes = 4096;

template <Platform P, class Lock, bool kChainApart = false>
class BucketArray {
 public:
  using Bucket = FutexBucket<P, Lock, kChainApart>;

  // Packed: buckets follow each other at their natural size, so several share a line.
  // Aligned: each starts a line of its own. Split: as aligned, the wait list a line further.
  static constexpr std::size_t stride(Layout layout) {
    return layout != Layout::packed ? (sizeof(Bucket) + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes
                                    : sizeof(Bucket);
  }

  // `node` < 0 interleaves the table over `nodes` nodes. `name` names the buckets in traces
  // and counterexamples: "bucket" reads bucket[14].waiters.
  BucketArray(std::uint32_t buckets, Layout layout, NodeId node, int nodes, std::string_view name = "bucket")
      : buckets_(buckets), stride_(stride(layout)) {
    if (buckets == 0 || (buckets & (buckets - 1)) != 0)
      throw std::invalid_argument("futex table: bucket count must be a power of two");
    if ((layout == Layout::split) != kChainApart)
      throw std::logic_error("futex table: a split layout's buckets keep their wait list apart");
    const std::size_t total = std::size_t{buckets} * stride_;
    if (node >= 0 || nodes <= 1) {
      per_chunk_ = buckets;
      chunk_bytes_ = total;
      chunks_.push_back(static_cast<std::byte*>(P::allocate(total, kCacheLineBytes, node < 0 ? 0 : node)));
    } else {
      per_chunk_ = std::max<std::size_t>(1, kInterleaveChunkBytes / stride_);
      chunk_bytes_ = per_chunk_ * stride_;
      const std::size_t chunks = (buckets + per_chunk_ - 1) / per_chunk_;
      for (std::size_t c = 0; c < chunks; ++c)
        chunks_.push_back(static_cast<std::byte*>(P::allocate(
            chunk_bytes_, kInterleaveChunkBytes, static_cast<NodeId>(c % static_cast<std::size_t>(nodes)))));
    }
    for (std::uint32_t i = 0; i < buckets_; ++i) new (address(i)) Bucket();
    const Bucket& b = bucket(0);
    const LabelField fields[] = {label_field(b, b.lock, "lock"), label_field(b, b.waiters, "waiters"),
                                 label_field(b, b.head, "head"), label_field(b, b.tail, "tail")};
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      P::label(chunks_[c], chunk_bytes_, name, LabelLayout{stride_, c * per_chunk_, fields});
  }

  ~BucketArray() {
    for (std::uint32_t i = 0; i < buckets_; ++i) bucket(i).~Bucket();
    for (std::byte* chunk : chunks_) P::deallocate(chunk, chunk_bytes_);
  }
  BucketArray(const BucketArray&) = delete;
  BucketArray& operator=(const BucketArray&) = delete;

  std::uint32_t size() const { return buckets_; }
  Bucket& bucket(std::uint32_t i) { return *std::launder(reinterpret_cast<Bucket*>(address(i))); }

 private:
  std::byte* address(std::uint32_t i) const { return chunks_[i / per_chunk_] + (i % per_chunk_) * stride_; }

  std::uint32_t buckets_;
  std::size_t stride_;
  std::size_t per_chunk_ = 0;
  std::size_t chunk_bytes_ = 0;
  std::vector<std::byte*> chunks_;
};

}  // namespace lockstep::futex
