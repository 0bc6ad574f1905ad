// The policies a file-I/O design is configured with (docs/fileio.md): how the descriptor's
// offset is protected (docs/sources.md section 2) and how the file's data is locked for read and
// write (section 3), plus the machine's word size for the offset.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/properties.hpp"

namespace lockstep::fileio {

// docs/sources.md section 2, in table order.
enum class OffsetPolicy : std::uint8_t {
  none,          // Unix before 1987, Linux before 3.14: offset copied, I/O done, offset written back
  inode_lock,    // CSRG 1987 (McKusick): the exclusive inode lock covers the offset
  vnode_rwlock,  // Solaris/illumos: the vnode rwlock, shared for reads, exclusive for writes
  f_pos_lock,    // Linux 3.14+ (9c225f2655e3): a mutex, taken only when the file is shared
  foffset_lock,  // FreeBSD (c5c1199c83): a sleep lock over the whole I/O
};
inline constexpr std::array<std::string_view, 5> kOffsetPolicyNames{"none", "inode-lock", "vnode-rwlock", "f-pos-lock",
                                                                    "foffset-lock"};

// docs/sources.md section 3, in table order.
enum class DataPolicy : std::uint8_t {
  exclusive,       // 7th Edition: the exclusive inode lock for all I/O
  shared_read,     // 4.3BSD, FreeBSD, illumos UFS, XFS: inode rwlock, shared reads
  lockless_reads,  // ext4, btrfs, tmpfs: i_rwsem for writes, no lock for reads
  page_locks,      // the seed's Linux: per-page locks for both
  range_locks,     // FreeBSD rangelocks
};
inline constexpr std::array<std::string_view, 5> kDataPolicyNames{"exclusive", "shared-read", "lockless-reads",
                                                                  "page-locks", "range-locks"};

// The properties a file workload checks (docs/fileio.md, "Properties").
inline constexpr std::array<std::string_view, 5> kFileProperties{
    property::offset_not_torn, property::reads_unique, property::no_lost_write, property::writes_not_interleaved,
    property::reads_atomic};

// The file's contents are 64-bit words: each is copied with one load and one store, so a
// read racing a write can see any prefix of it, word by word, as memcpy gives on a 64-bit
// machine. Sizes and positions are in bytes and must be multiples of this.
inline constexpr std::uint64_t kWordBytes = 8;

struct FileioConfig {
  OffsetPolicy offset = OffsetPolicy::f_pos_lock;
  DataPolicy data = DataPolicy::shared_read;
  // 32: the 64-bit offset is two 32-bit halves, stored (and loaded) one after the other, as
  // on a 32-bit machine (seed, "file offset semantics").
  unsigned word_bits = 64;
  std::uint64_t page_size = 4096;  // bytes, a multiple of kWordBytes
};

constexpr std::string_view name_of(OffsetPolicy p) { return kOffsetPolicyNames[static_cast<std::size_t>(p)]; }
constexpr std::string_view name_of(DataPolicy p) { return kDataPolicyNames[static_cast<std::size_t>(p)]; }

}  // namespace lockstep::fileio
