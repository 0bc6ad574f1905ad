// One set-associative cache's tag array: which lines it holds, and which to evict.
//
// Every access of the machine model looks up one to three of these, and the simulated
// tag arrays of a large machine are megabytes (host cache misses), so a lookup should
// touch as few host cachelines as it can: a set is its tags (8 bytes a way, contiguous)
// followed by its ways' LRU stamps, so a 2-way L1 set is one host line. Starting a new
// execution must empty every cache in O(1) (exploration re-runs from scratch thousands of
// times a second), so a tag carries the generation it was written in, in its top bits: a
// way of an older generation is free, and comparing a tag with (generation, line) checks
// both at once.
//
// A set of 32 ways or more spans several host lines of tags (a 32-way L3 set is four, the
// 45-way one of xeon-e7-16s six), and most lookups of a last level miss, which scanned
// them all. Such a cache keeps a summary per set, one host line: which ways hold a line of
// this generation, and a byte-sized fingerprint of each way's line. A lookup compares the
// fingerprints sixteen at a time and reads a tag only where one matches, so a miss reads
// the summary alone, and a way's tag sits beside its LRU stamp, so a hit reads one more
// line. Summaries change no answer: a fingerprint only narrows which tags are compared.
// (16-way L2 sets measured slower with summaries: their lookups mostly follow a prefetch
// of the whole set, and a hit or an invalidation needed a second, unprefetched line.)
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/host_pages.hpp"
#include "sim/host_prefetch.hpp"
#include "sim/machine/machine_config.hpp"

namespace lockstep::sim::machine {

class Cache {
 public:
  // The host words a cache of `level` keeps its tags, LRU stamps and set summaries in (a
  // multiple of a host line's eight); throws std::invalid_argument for a shape the model
  // cannot hold.
  static std::size_t words_for(const CacheLevel& level);
  // `words` is words_for(level) words that outlive the cache: a machine's caches share one
  // block of huge pages (host_pages.hpp), since a lookup lands on a random set of megabytes
  // of tags, and with 4 KiB pages most would also miss the host's TLB.
  Cache(const CacheLevel& level, std::uint64_t* words);

  void clear();
  // True on a hit (and marks the line most recently used). Inline: every access of the
  // machine model makes one, most of them L1 hits.
  bool lookup(std::uint64_t line) {
    const std::size_t set = set_of(line);
    const int way = find(set, line);
    if (way < 0) return false;
    touch(set, static_cast<std::size_t>(way));
    return true;
  }
  bool contains(std::uint64_t line) const { return find(set_of(line), line) >= 0; }
  // Starts loading the host lines a lookup of `line` reads first (its set's summary, or
  // its tags and stamps); changes nothing.
  void prefetch(std::uint64_t line) const {
    const std::size_t set = set_of(line);
    if (summarized()) {
      prefetch_host_line(summary(set));
      return;
    }
    const std::uint64_t* tags_and_stamps = tags(set);
    for (std::size_t word = 0; word < set_words_; word += kWordsPerHostLine) prefetch_host_line(tags_and_stamps + word);
  }
  // Puts `line` in; returns the line it evicted, if any.
  std::optional<std::uint64_t> insert(std::uint64_t line);
  void invalidate(std::uint64_t line);
  double hit_ns() const { return hit_ns_; }

  // Line numbers (physical address / 64) fit below the generation bits.
  static constexpr int kLineBits = 52;
  static constexpr std::uint64_t kMaxLine = (std::uint64_t{1} << kLineBits) - 1;

 private:
  // Generations cycle through 0..kGenerations-1; the all-ones tag (generation
  // kGenerations) is a free way in every generation.
  static constexpr std::uint64_t kGenerations = (std::uint64_t{1} << (64 - kLineBits)) - 1;
  static constexpr std::uint64_t kNoLine = ~std::uint64_t{0};
  static constexpr std::size_t kWordsPerHostLine = 64 / sizeof(std::uint64_t);
  // Sets this wide and wider keep a summary (one word of valid ways, then a fingerprint
  // byte per way); the valid ways are a mask below the generation, so at most 48 ways.
  // Narrower sets are scanned.
  static constexpr int kValidBits = 48;
  static constexpr std::uint32_t kSummaryMinWays = 32;
  static constexpr std::uint32_t kSummaryMaxWays = kValidBits;

  static std::size_t set_words_for(const CacheLevel& level);
  static std::size_t summary_words_for(const CacheLevel& level);  // per set; 0: no summaries
  static std::size_t sets_for(const CacheLevel& level);
  static std::size_t round_to_host_lines(std::size_t words) {
    return (words + kWordsPerHostLine - 1) / kWordsPerHostLine * kWordsPerHostLine;
  }
  std::size_t set_of(std::uint64_t line) const { return static_cast<std::size_t>(line & (sets_ - 1)); }
  std::uint64_t tag_of(std::uint64_t line) const { return generation_ << kLineBits | line; }
  bool valid(std::uint64_t tag) const { return tag >> kLineBits == generation_; }
  // A set's tags (generation << kLineBits | line, or kNoLine) and with LRU its stamps: all
  // tags, then all stamps, where a lookup scans the tags; each way's tag beside its stamp
  // in a summarized set, where a lookup reads one way (and touches its stamp).
  std::uint64_t* tags(std::size_t set) { return &words_[set * set_words_]; }
  const std::uint64_t* tags(std::size_t set) const { return &words_[set * set_words_]; }
  std::uint64_t& tag_at(std::size_t set, std::size_t way) { return tags(set)[way * way_stride_]; }
  std::uint64_t tag_at(std::size_t set, std::size_t way) const { return tags(set)[way * way_stride_]; }
  std::uint64_t& stamp_at(std::size_t set, std::size_t way) { return tags(set)[stamp_offset_ + way * way_stride_]; }
  std::uint64_t stamp_at(std::size_t set, std::size_t way) const {
    return tags(set)[stamp_offset_ + way * way_stride_];
  }

  // --- set summaries (caches of kSummaryMinWays ways or more) ---
  bool summarized() const { return summaries_ != nullptr; }
  std::uint64_t* summary(std::size_t set) { return summaries_ + set * summary_words_; }
  const std::uint64_t* summary(std::size_t set) const { return summaries_ + set * summary_words_; }
  // The summary's first word: the generation above a mask of the ways holding a line of
  // it. Tags of the other ways are stale and never compared.
  std::uint64_t valid_ways(const std::uint64_t* s) const {
    return s[0] >> kValidBits == generation_ ? s[0] & ((std::uint64_t{1} << kValidBits) - 1) : 0;
  }
  void set_valid_ways(std::uint64_t* s, std::uint64_t ways) const { s[0] = generation_ << kValidBits | ways; }
  static std::uint8_t fingerprint(std::uint64_t line) {
    return static_cast<std::uint8_t>((line * 0x9E3779B97F4A7C15ULL) >> 56);
  }
  static std::uint8_t* fingerprints(std::uint64_t* s) { return reinterpret_cast<std::uint8_t*>(s + 1); }
  static const std::uint8_t* fingerprints(const std::uint64_t* s) {
    return reinterpret_cast<const std::uint8_t*>(s + 1);
  }
  std::uint64_t ways_with_fingerprint(const std::uint64_t* s, std::uint8_t fp) const;

  // The way of the set holding `line`, or -1.
  int find(std::size_t set, std::uint64_t line) const {
    const std::uint64_t tag = tag_of(line);
    if (summarized()) {
      const std::uint64_t* s = summary(set);
      for (std::uint64_t c = ways_with_fingerprint(s, fingerprint(line)) & valid_ways(s); c != 0; c &= c - 1) {
        const int w = std::countr_zero(c);
        if (tag_at(set, static_cast<std::size_t>(w)) == tag) return w;
      }
      return -1;
    }
    const std::uint64_t* t = tags(set);
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (t[w] == tag) return static_cast<int>(w);
    return -1;
  }
  std::size_t victim(std::size_t set) const;  // of a full set
  void touch(std::size_t set, std::size_t way) {
    if (replacement_ == Replacement::plru) {
      touch_plru(set, way);
    } else {
      stamp_at(set, way) = ++tick_;
    }
  }
  void touch_plru(std::size_t set, std::size_t way);
  std::optional<std::uint64_t> insert_summarized(std::size_t set, std::uint64_t line);

  std::uint64_t sets_ = 1;
  std::uint32_t ways_ = 1;
  double hit_ns_ = 1;
  Replacement replacement_ = Replacement::lru;
  std::size_t set_words_ = 1;             // ways, and as many stamps with LRU
  std::size_t way_stride_ = 1;            // words from one way's tag to the next's
  std::size_t stamp_offset_ = 1;          // words from a way's tag to its stamp
  std::uint64_t* words_ = nullptr;        // set_words_ per set, not owned
  std::size_t summary_words_ = 0;         // per set
  std::uint64_t* summaries_ = nullptr;    // after the sets, in the same block; null: none
  std::vector<std::uint64_t> plru_bits_;  // tree pseudo-LRU, one word per set
  std::uint64_t generation_ = 0;
  std::uint64_t tick_ = 0;
};

// A mask of the ways whose fingerprint is `fp` (ways past the last may be set: the valid
// mask clears them). SSE2 compares sixteen at once.
inline std::uint64_t Cache::ways_with_fingerprint(const std::uint64_t* s, std::uint8_t fp) const {
  const std::uint8_t* bytes = fingerprints(s);
  std::uint64_t match = 0;
#if defined(__SSE2__)
  const __m128i needle = _mm_set1_epi8(static_cast<char>(fp));
  for (std::uint32_t i = 0; i < ways_; i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + i));
    const auto equal = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, needle)));
    match |= std::uint64_t{equal} << i;
  }
#else
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (bytes[w] == fp) match |= std::uint64_t{1} << w;
#endif
  return match;
}

}  // namespace lockstep::sim::machine
