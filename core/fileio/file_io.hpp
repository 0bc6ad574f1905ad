// The system calls on one file: read, write and lseek through an open file description
// (its offset guarded as the offset policy says, docs/sources.md section 2), pread and pwrite
// at an explicit position (no offset, so only the data policy's locks), each reporting what
// a checker needs to judge it afterwards (IoResult).
#pragma once

#include <cstdint>
#include <vector>

#include "core/fileio/data_path.hpp"
#include "core/fileio/fileio_config.hpp"
#include "core/fileio/inode.hpp"
#include "core/fileio/open_file.hpp"
#include "core/platform.hpp"

namespace lockstep::fileio {

enum class Whence : std::uint8_t { set, cur, end };

struct IoResult {
  std::uint64_t position = 0;     // where the data went or came from; lseek: the new offset
  std::uint64_t bytes = 0;        // moved (short at end of file)
  std::uint64_t offset_seen = 0;  // read, write, lseek: the offset as this call loaded it
};

template <Platform P>
class FileIo {
 public:
  FileIo(const FileioConfig& config, Inode<P>& inode) : config_(config), inode_(inode), data_(config, inode) {}

  IoResult read(OpenFile<P>& file, std::uint64_t bytes, std::vector<std::uint64_t>& out) {
    ProtocolSteps<P> steps("read");
    return with_offset(steps, file, LockMode::shared, [&](IoResult& r, bool inode_held) {
      r.position = r.offset_seen;
      r.bytes = data_.read(steps, r.position, bytes, out, inode_held);
      steps.next("store the new offset");
      file.store_offset(r.position + r.bytes);
    });
  }

  IoResult write(OpenFile<P>& file, std::uint64_t bytes, std::uint64_t id) {
    ProtocolSteps<P> steps("write");
    return with_offset(steps, file, LockMode::exclusive, [&](IoResult& r, bool inode_held) {
      r.position = data_.write(steps, r.offset_seen, bytes, id, file.append(), inode_held);
      r.bytes = bytes;
      steps.next("store the new offset");
      file.store_offset(r.position + bytes);
    });
  }

  IoResult pread(std::uint64_t position, std::uint64_t bytes, std::vector<std::uint64_t>& out) {
    ProtocolSteps<P> steps("pread");
    P::charge(Work::syscall_entry, 1);
    IoResult r{position, data_.read(steps, position, bytes, out, false), 0};
    P::charge(Work::syscall_exit, 1);
    return r;
  }

  IoResult pwrite(std::uint64_t position, std::uint64_t bytes, std::uint64_t id) {
    ProtocolSteps<P> steps("pwrite");
    P::charge(Work::syscall_entry, 1);
    IoResult r{data_.write(steps, position, bytes, id, false, false), bytes, 0};
    P::charge(Work::syscall_exit, 1);
    return r;
  }

  // lseek reads and writes the offset like a read would: under vnode-rwlock it takes the
  // lock shared [guess: docs/sources.md names only reads and writes], under the others what
  // read() takes.
  IoResult lseek(OpenFile<P>& file, std::int64_t offset, Whence whence) {
    ProtocolSteps<P> steps("lseek");
    return with_offset(steps, file, LockMode::shared, [&](IoResult& r, bool) {
      steps.next("compute the new offset");
      const std::uint64_t base = whence == Whence::set ? 0 : whence == Whence::cur ? r.offset_seen : inode_.size();
      r.position = base + static_cast<std::uint64_t>(offset);
      steps.next("store the new offset");
      file.store_offset(r.position);
    });
  }

 private:
  // Runs `body` with the offset loaded into r.offset_seen, under the offset policy's lock.
  // `mode`: how the vnode-rwlock policy takes the inode lock for this call.
  // The protocol steps (P::note_step) are named as the offset policies' sources tell them.
  template <class F>
  IoResult with_offset(ProtocolSteps<P>& steps, OpenFile<P>& file, LockMode mode, F&& body) {
    P::charge(Work::syscall_entry, 1);
    IoResult r;
    switch (config_.offset) {
      // Unix before 1987 and Linux before 3.14: "offset copied, I/O done, offset written back"
      // with nothing held in between.
      case OffsetPolicy::none:
        steps.next("load the offset (no lock)");
        r.offset_seen = file.load_offset();
        body(r, false);
        break;
      // CSRG 1987: "the exclusive inode lock also protected offset" for every call.
      case OffsetPolicy::inode_lock:
        under_inode(steps, LockMode::exclusive, file, r, body);
        break;
      // Solaris: "manipulates the offset within a shared vnode lock for reads and an
      // exclusive lock for writes".
      case OffsetPolicy::vnode_rwlock:
        under_inode(steps, mode, file, r, body);
        break;
      // Linux 3.14 takes f_pos_lock only when the file is shared; FreeBSD always takes its
      // offset lock, over the whole I/O ("serializes reads done to the same fd").
      case OffsetPolicy::f_pos_lock:
      case OffsetPolicy::foffset_lock: {
        const bool lock = config_.offset == OffsetPolicy::foffset_lock || file.shared();
        if (lock) {
          steps.next("lock the offset");
          file.pos_lock().lock();
        }
        steps.next("load the offset");
        r.offset_seen = file.load_offset();
        body(r, false);
        if (lock) {
          steps.next("unlock the offset");
          file.pos_lock().unlock();
        }
        break;
      }
    }
    P::charge(Work::syscall_exit, 1);
    return r;
  }

  template <class F>
  void under_inode(ProtocolSteps<P>& steps, LockMode mode, OpenFile<P>& file, IoResult& r, F& body) {
    steps.next(mode == LockMode::shared ? "lock the inode shared" : "lock the inode exclusive");
    inode_.rwlock().lock(mode);
    steps.next("load the offset");
    r.offset_seen = file.load_offset();
    body(r, true);
    steps.next("unlock the inode");
    inode_.rwlock().unlock(mode);
  }

  FileioConfig config_;
  Inode<P>& inode_;
  DataPath<P> data_;
};

}  // namespace lockstep::fileio
