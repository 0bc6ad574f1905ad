// Where one execution's trace goes while it is recorded: always into its SHA-256, into a
// file when one is asked for, and kept in memory (up to a cap) for the Chrome export, so a
// timed run of millions of steps never holds its whole trace. The simulator's recorder and
// a native run's writer (driver/native_trace.hpp) both write through it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "io/files.hpp"
#include "sim/exec/trace.hpp"
#include "trace/writer.hpp"

namespace lockstep::driver {

// The file of row `row` (from 0) of a sweep when one path was given for all rows: `-row<N>`,
// N from 1, before the name's extension (`.trace.jsonl` and `.chrome.json` count as one):
// x.trace.jsonl -> x-row2.trace.jsonl, as --save-traces names rows (docs/traces.md).
std::string row_file(const std::string& path, std::size_t row);

class TraceOutput {
 public:
  // Empty paths: not wanted. `trace_limit_bytes` > 0: the trace file is dropped once it
  // would grow past that (the hash still covers the whole trace).
  TraceOutput(std::string trace_path, std::string chrome_path, std::uint64_t trace_limit_bytes = 0);
  void attach(sim::TraceRecorder& recorder);
  void attach(trace::Writer& writer);

  struct Written {
    std::string sha256;
    std::string trace_path;         // empty when not written
    std::string chrome_trace_path;  // empty when not written (or the trace was too large)
  };
  Written finish(sim::TraceRecorder& recorder);
  Written finish(trace::Writer& writer);

 private:
  static constexpr std::size_t kChromeMaxBytes = std::size_t{64} << 20;
  // A Chrome trace is made from a trace of at most this many bytes: the trace file's own
  // limit where it has one (a dropped trace gets no Chrome trace either).
  std::uint64_t chrome_cap() const {
    return limit_ > 0 ? std::min<std::uint64_t>(limit_, kChromeMaxBytes) : kChromeMaxBytes;
  }
  void take(std::string_view chunk);
  Written finish_files();

  std::string trace_path_;
  std::string chrome_path_;
  io::Sha256Stream sha_;
  std::optional<io::AtomicFileWriter> file_;
  std::uint64_t limit_ = 0;
  std::uint64_t written_ = 0;
  std::string kept_;
  bool kept_whole_ = true;
};

}  // namespace lockstep::driver
