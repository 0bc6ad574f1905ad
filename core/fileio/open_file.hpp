// An open file description (Linux's struct file, FreeBSD's struct file): the offset that
// read(), write() and lseek() use and advance, O_APPEND, how many threads share it (the
// count f_pos_lock looks at) and the lock that guards the offset under f-pos-lock and
// foffset-lock. Threads that share a descriptor share all of this (seed, "file offset
// semantics": "many threads or even processes may share a single file descriptor").
#pragma once

#include <cstdint>
#include <string_view>

#include "core/fileio/fileio_config.hpp"
#include "core/platform.hpp"
#include "core/sync/sleep_mutex.hpp"

namespace lockstep::fileio {

template <Platform P>
class OpenFile {
 public:
  OpenFile(unsigned word_bits, bool append, std::uint64_t offset, std::uint32_t users)
      : split_(word_bits == 32),
        append_(append),
        offset_(offset),
        lo_(static_cast<std::uint32_t>(offset)),
        hi_(static_cast<std::uint32_t>(offset >> 32)),
        users_(users) {}

  // Names the open file description's fields for traces in Linux's words (struct file):
  // f_pos (its halves f_pos_lo, f_pos_hi on a 32-bit machine), f_count, f_pos_lock.
  void label(std::string_view name) const {
    const LabelField fields[] = {label_field(*this, offset_, "f_pos"), label_field(*this, lo_, "f_pos_lo"),
                                 label_field(*this, hi_, "f_pos_hi"), label_field(*this, users_, "f_count"),
                                 label_field(*this, pos_lock_, "f_pos_lock")};
    P::label(this, sizeof *this, name, LabelLayout{0, 0, fields});
  }

  bool append() const { return append_; }
  SleepMutex<P>& pos_lock() { return pos_lock_; }

  // f_count > 1: Linux 3.14's fdget_pos() takes f_pos_lock only then (9c225f2655e3).
  bool shared() const { return users_.load(std::memory_order_relaxed) > 1; }

  // On a 32-bit machine the offset is two words, loaded and stored low half first: a load
  // between the two stores of another thread sees half of its update (seed: "other threads
  // can see half of the update, or ... two simultaneous updaters may set different bytes").
  std::uint64_t load_offset() const {
    if (!split_) return offset_.load();
    const std::uint64_t lo = lo_.load();
    return lo | (std::uint64_t{hi_.load()} << 32);
  }
  void store_offset(std::uint64_t value) {
    if (!split_) {
      offset_.store(value);
      return;
    }
    lo_.store(static_cast<std::uint32_t>(value));
    hi_.store(static_cast<std::uint32_t>(value >> 32));
  }

 private:
  bool split_;
  bool append_;
  typename P::template Shared<std::uint64_t> offset_;
  typename P::template Shared<std::uint32_t> lo_;
  typename P::template Shared<std::uint32_t> hi_;
  typename P::template Atomic<std::uint32_t> users_;
  SleepMutex<P> pos_lock_;
};

}  // namespace lockstep::fileio
