// The file: its size and its data, in pages of a configurable size, each with its own
// sleeping page lock, plus the locks a data policy may take over the whole file (the inode
// rwlock, a range lock). docs/sources.md section 3 lists which policy takes which.
//
// The data are P::Shared words, so every word a read or write copies is a step of its own
// and a read racing a write is a real race, seen word by word. Each word holds a tag that
// says which write stored it (or that it is initial content) and where, which is what lets
// the properties be decided from the final state and the recorded reads (history.hpp).
//
// A file may be sparse: only the pages the workload can reach are allocated (a test of torn
// offsets works near 4 GiB); the map from page index to page is fixed at setup, as a file's
// block map is for the blocks it already has, so it is host memory and not a step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "core/fileio/fileio_config.hpp"
#include "core/platform.hpp"
#include "core/sync/range_lock.hpp"
#include "core/sync/sleep_mutex.hpp"
#include "core/sync/sleep_rwlock.hpp"

namespace lockstep::fileio {

// What a data word holds: the write that stored it (0: initial content) and the word's
// position, so a word copied to the wrong place is also caught.
constexpr std::uint64_t tag_of(std::uint64_t write_id, std::uint64_t position) {
  return (write_id << 40) | (position / kWordBytes);
}
constexpr std::uint64_t writer_of(std::uint64_t tag) { return tag >> 40; }
constexpr std::uint64_t position_of(std::uint64_t tag) { return (tag & ((std::uint64_t{1} << 40) - 1)) * kWordBytes; }

template <Platform P>
class Inode {
 public:
  using Word = typename P::template Shared<std::uint64_t>;

  struct Page {
    std::uint64_t index = 0;  // position / page_size
    SleepMutex<P>* lock = nullptr;
    Word* words = nullptr;
  };

  // `pages`: the indices of the pages to allocate (any order, duplicates allowed).
  Inode(const FileioConfig& config, std::vector<std::uint64_t> pages, std::uint64_t initial_size)
      : page_size_(config.page_size) {
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    shared_ = make_on<P, SharedPart>(0, kCacheLineBytes, initial_size);
    const auto rwlock_fields = shared_->rwlock.label_fields();
    P::label(&shared_->rwlock, sizeof shared_->rwlock, "inode.rwlock", LabelLayout{0, 0, rwlock_fields});
    const auto range_fields = shared_->range.label_fields();
    P::label(&shared_->range, sizeof shared_->range, "inode.rangelock", LabelLayout{0, 0, range_fields});
    P::label(&shared_->size, sizeof shared_->size, "inode.size");
    const std::uint64_t words = page_size_ / kWordBytes;
    for (const std::uint64_t index : pages) {
      Page page{index, make_on<P, SleepMutex<P>>(0, kCacheLineBytes), nullptr};
      page.words = static_cast<Word*>(P::allocate(sizeof(Word) * words, kCacheLineBytes, 0));
      for (std::uint64_t w = 0; w < words; ++w)
        new (&page.words[w]) Word(tag_of(0, index * page_size_ + w * kWordBytes));
      // page[i].lock and page[i].data[w]: the page's index in the file and the word's in the page.
      const auto lock_fields = page.lock->label_fields();
      P::label(page.lock, sizeof(SleepMutex<P>), fmt::format("page[{}].lock", index), LabelLayout{0, 0, lock_fields});
      P::label(page.words, sizeof(Word) * words, fmt::format("page[{}].data", index), LabelLayout{sizeof(Word), 0, {}});
      pages_.push_back(page);
    }
  }
  ~Inode() {
    for (Page& p : pages_) {
      destroy_on<P>(p.lock);
      P::deallocate(p.words, sizeof(Word) * (page_size_ / kWordBytes));
    }
    destroy_on<P>(shared_);
  }
  Inode(const Inode&) = delete;
  Inode& operator=(const Inode&) = delete;

  std::uint64_t page_size() const { return page_size_; }
  SleepRwLock<P>& rwlock() { return shared_->rwlock; }
  RangeLock<P>& range_lock() { return shared_->range; }

  // i_size is read and raised with atomics whatever the data policy: kernels order its
  // updates by means of their own (Linux's i_size_write under i_rwsem or a seqcount), and
  // a lost size update is not one of the anomalies docs/sources.md section 3 studies.
  std::uint64_t size() const { return shared_->size.load(std::memory_order_acquire); }
  void raise_size(std::uint64_t end) {
    std::uint64_t seen = shared_->size.load(std::memory_order_relaxed);
    while (seen < end && !shared_->size.compare_exchange_strong(seen, end, std::memory_order_acq_rel)) {
    }
  }

  // The page holding `position`; nullptr where the file has no page (never reached by a
  // correct offset, so the caller reports it).
  Page* page_at(std::uint64_t position) {
    const auto it = std::lower_bound(pages_.begin(), pages_.end(), position / page_size_,
                                     [](const Page& p, std::uint64_t i) { return p.index < i; });
    return it != pages_.end() && it->index == position / page_size_ ? &*it : nullptr;
  }

  // The word at `position` as it is now (after a run: the final content).
  std::uint64_t word_at(std::uint64_t position) const {
    const auto it = std::lower_bound(pages_.begin(), pages_.end(), position / page_size_,
                                     [](const Page& p, std::uint64_t i) { return p.index < i; });
    if (it == pages_.end() || it->index != position / page_size_) return tag_of(0, position);
    return it->words[(position % page_size_) / kWordBytes].load();
  }

 private:
  struct SharedPart {
    explicit SharedPart(std::uint64_t size0) : size(size0) {}
    SleepRwLock<P> rwlock;
    RangeLock<P> range;
    typename P::template Atomic<std::uint64_t> size;
  };

  std::uint64_t page_size_;
  SharedPart* shared_ = nullptr;
  std::vector<Page> pages_;  // sorted by index
};

}  // namespace lockstep::fileio
