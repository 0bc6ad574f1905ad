// What an execution of a file workload did, call by call, kept in host memory so that
// recording is not a step: the calls with what they saw and where they went, their order in
// real time (begin and end stamps from one counter), and the file's final state. The
// properties (history_checks.hpp) are decided from this alone, after the run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/fileio/fileio_config.hpp"

namespace lockstep::fileio {

enum class CallKind : std::uint8_t { read, write, pread, pwrite, lseek };

struct Call {
  CallKind kind = CallKind::read;
  int thread = 0;
  int fd = -1;                  // read, write, lseek: the descriptor; -1 for pread, pwrite
  std::uint64_t id = 0;         // writes: the write's id (the tag its words carry); 0 otherwise
  std::uint64_t requested = 0;  // bytes asked for
  std::uint64_t bytes = 0;      // bytes moved
  std::uint64_t position = 0;   // where; lseek: the offset it set
  std::uint64_t offset_seen = 0;
  std::uint64_t begin = 0;  // real-time stamps: a call that ends before another begins precedes it
  std::uint64_t end = 0;
  std::vector<std::uint64_t> data;  // reads: the tags of the words returned
  std::string where;                // the op in the scenario, "file:line:col"
  bool seek_from_end = false;       // lseek: SEEK_END (its target depends on the size)
  bool seek_set = false;            // lseek: SEEK_SET (its target is a serial value itself)
  bool append = false;              // write: through an O_APPEND descriptor
  bool is_write() const { return kind == CallKind::write || kind == CallKind::pwrite; }
  bool is_read() const { return kind == CallKind::read || kind == CallKind::pread; }
};

struct DescriptorState {
  std::uint64_t initial_offset = 0;
  std::uint64_t final_offset = 0;
  bool append = false;
};

struct History {
  std::vector<Call> calls;  // completed calls, in order of completion
  std::vector<DescriptorState> descriptors;
  std::uint64_t initial_size = 0;
  std::uint64_t final_size = 0;
  // The final content: for each word position written by some call, the tag it holds.
  std::map<std::uint64_t, std::uint64_t> final_words;  // position -> tag
  std::uint64_t final_word(std::uint64_t position) const {
    const auto it = final_words.find(position);
    return it != final_words.end() ? it->second : position / kWordBytes;  // never written: initial content
  }
};

inline const char* name_of(CallKind kind) {
  switch (kind) {
    case CallKind::read:
      return "read";
    case CallKind::write:
      return "write";
    case CallKind::pread:
      return "pread";
    case CallKind::pwrite:
      return "pwrite";
    case CallKind::lseek:
      return "lseek";
  }
  return "?";
}

}  // namespace lockstep::fileio
