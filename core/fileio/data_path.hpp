// Moving data between a caller and the file under a data policy (docs/sources.md section 3):
// which locks a read or a write of the file's bytes takes, then the copy, word by word.
// The offset is not this file's business (offset_path.hpp); pread and pwrite come straight
// here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/fileio/fileio_config.hpp"
#include "core/fileio/inode.hpp"
#include "core/platform.hpp"

namespace lockstep::fileio {

// A write that reaches a page the file does not have: only a corrupt (torn) offset leads
// there, since the workload allocates every page a serial execution can write.
inline constexpr std::string_view kOutsideFile = "offset_not_torn";

template <Platform P>
class DataPath {
 public:
  DataPath(const FileioConfig& config, Inode<P>& inode) : policy_(config.data), inode_(inode) {}

  // Reads up to `bytes` at `position` into `out` (tags, one per word); returns the bytes
  // read, short at end of file. `inode_held`: the offset policy already holds the inode
  // rwlock (inode-lock, vnode-rwlock), which then stands for the data policy's.
  // `steps`: the calling system call's protocol steps, which this continues (P::note_step).
  std::uint64_t read(ProtocolSteps<P>& steps, std::uint64_t position, std::uint64_t bytes,
                     std::vector<std::uint64_t>& out, bool inode_held) {
    switch (policy_) {
      case DataPolicy::exclusive:
        return under_rwlock(steps, LockMode::exclusive, inode_held,
                            [&] { return copy_out(steps, position, bytes, out, false); });
      case DataPolicy::shared_read:
        return under_rwlock(steps, LockMode::shared, inode_held,
                            [&] { return copy_out(steps, position, bytes, out, false); });
      // ext4/tmpfs buffered reads copy from the page cache holding only a reference on each
      // folio, no lock: what lets a read see part of a write, "even within one page".
      case DataPolicy::lockless_reads:
        return copy_out(steps, position, bytes, out, false);
      case DataPolicy::page_locks:
        return copy_out(steps, position, bytes, out, true);
      case DataPolicy::range_locks: {
        Local<P, typename RangeLock<P>::Node> node;  // on this thread's stack (P::Local)
        steps.next("lock the byte range shared");
        inode_.range_lock().lock_read(*node, position, position + std::max<std::uint64_t>(bytes, 1));
        const std::uint64_t n = copy_out(steps, position, bytes, out, false);
        steps.next("unlock the byte range");
        inode_.range_lock().unlock_read(*node);
        return n;
      }
    }
    return 0;
  }

  // Writes `bytes` tagged as write `id` at `position`, or at the end of the file when
  // `append`; returns where the data went.
  std::uint64_t write(ProtocolSteps<P>& steps, std::uint64_t position, std::uint64_t bytes, std::uint64_t id,
                      bool append, bool inode_held) {
    switch (policy_) {
      case DataPolicy::exclusive:
      case DataPolicy::shared_read:
      case DataPolicy::lockless_reads:
        return under_rwlock(steps, LockMode::exclusive, inode_held,
                            [&] { return copy_in(steps, position, bytes, id, append, false); });
      case DataPolicy::page_locks:
        // The seed: "On linux, excepting appends, the inode is not locked for io." An append
        // must find the end of file and extend it as one step, so it holds the inode lock;
        // every other write takes only the pages' locks.
        if (append)
          return under_rwlock(steps, LockMode::exclusive, inode_held,
                              [&] { return copy_in(steps, position, bytes, id, append, true); });
        return copy_in(steps, position, bytes, id, append, true);
      case DataPolicy::range_locks: {
        // FreeBSD's vn_write locks the whole file for an append (vn_rangelock_wlock(vp, 0,
        // OFF_MAX)): the end of file is not known until the lock is held.
        Local<P, typename RangeLock<P>::Node> node;  // on this thread's stack (P::Local)
        const std::uint64_t start = append ? 0 : position;
        const std::uint64_t end = append ? std::numeric_limits<std::uint64_t>::max() : position + bytes;
        steps.next(append ? "lock the whole file's range" : "lock the byte range");
        inode_.range_lock().lock_write(*node, start, end);
        const std::uint64_t at = copy_in(steps, position, bytes, id, append, false);
        steps.next("unlock the byte range");
        inode_.range_lock().unlock_write(*node);
        return at;
      }
    }
    return position;
  }

 private:
  template <class F>
  std::uint64_t under_rwlock(ProtocolSteps<P>& steps, LockMode mode, bool held, F&& body) {
    if (held) return body();
    steps.next(mode == LockMode::shared ? "lock the inode shared" : "lock the inode exclusive");
    inode_.rwlock().lock(mode);
    const std::uint64_t r = body();
    steps.next("unlock the inode");
    inode_.rwlock().unlock(mode);
    return r;
  }

  // Visits [position, position + bytes) page by page, holding each page's lock when asked;
  // `hole(at)` stands in for the words of a page the file does not have.
  template <class F, class H>
  void by_page(ProtocolSteps<P>& steps, std::uint64_t position, std::uint64_t bytes, bool lock_pages, F&& word,
               H&& hole) {
    const std::uint64_t page_size = inode_.page_size();
    for (std::uint64_t at = position; at < position + bytes;) {
      typename Inode<P>::Page* page = inode_.page_at(at);
      const std::uint64_t stop = std::min(position + bytes, (at / page_size + 1) * page_size);
      if (page == nullptr) {
        for (; at < stop; at += kWordBytes) hole(at);
        continue;
      }
      if (lock_pages) {
        steps.next("lock the page");
        page->lock->lock();
      }
      steps.next("copy the page's words");
      for (; at < stop; at += kWordBytes) word(page->words[(at % page_size) / kWordBytes], at);
      if (lock_pages) {
        steps.next("unlock the page");
        page->lock->unlock();
      }
    }
  }

  std::uint64_t copy_out(ProtocolSteps<P>& steps, std::uint64_t position, std::uint64_t bytes,
                         std::vector<std::uint64_t>& out, bool lock_pages) {
    steps.next("read the file size");
    const std::uint64_t size = inode_.size();
    const std::uint64_t n = position >= size ? 0 : std::min(bytes, size - position);
    by_page(
        steps, position, n, lock_pages, [&out](auto& word, std::uint64_t) { out.push_back(word.load()); },
        [&out](std::uint64_t at) { out.push_back(tag_of(0, at)); });
    return n;
  }

  // The workload gives the file a page wherever a serial execution can write, so a write to a
  // hole went where only a corrupted offset leads.
  std::uint64_t copy_in(ProtocolSteps<P>& steps, std::uint64_t position, std::uint64_t bytes, std::uint64_t id,
                        bool append, bool lock_pages) {
    if (append) {
      steps.next("read the end of file (append)");
      position = inode_.size();
    }
    bool outside = false;
    by_page(
        steps, position, bytes, lock_pages, [id](auto& word, std::uint64_t at) { word.store(tag_of(id, at)); },
        [&outside](std::uint64_t) { outside = true; });
    if (outside)
      P::violation(kOutsideFile, "a write at " + std::to_string(position) +
                                     ", where no serial execution writes: the offset was corrupted");
    steps.next("raise the file size");
    inode_.raise_size(position + bytes);
    return position;
  }

  DataPolicy policy_;
  Inode<P>& inode_;
};

}  // namespace lockstep::fileio
