// The trace reader: a trace's header, then its events one at a time (docs/traces.md).
//
//   trace::Reader reader(in, "run.trace.jsonl");   // or Reader(text, name)
//   const auto& header = reader.header();           // format and version checked
//   while (reader.next()) use(reader.event());     // the event is valid until the next call
//   reader.require_end();                           // truncated: no `end` event
//
// It holds one buffer of at most a line's bytes, never the file: hostile input cannot make
// it grow past ReaderLimits (an over-long line or too many events is a FormatError), and
// every error names the input and the line. Blank lines are skipped; reading stops at the
// `end` event (what follows it is ignored, as the format says).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "trace/error.hpp"
#include "trace/event.hpp"
#include "trace/format.hpp"

namespace lockstep::trace {

struct ReaderLimits {
  // The longest line, newline excluded. The simulator's longest lines (a header with a big
  // machine's node_of_cpu, a label with its fields, a violation's message) are a few KiB.
  std::size_t max_line_bytes = std::size_t{4} << 20;
  // Events after the header, `end` included.
  std::uint64_t max_events = std::uint64_t{1} << 32;
};

class Reader {
 public:
  // Reads from `in` as it goes. `name` (a file's path) prefixes error messages; may be empty.
  explicit Reader(std::istream& in, std::string name = {}, ReaderLimits limits = {});
  // Reads `text`, which must outlive the reader.
  explicit Reader(std::string_view text, std::string name = {}, ReaderLimits limits = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // The header, read and checked (format, version) on first use: a FormatError for input
  // that is empty, not a lockstep trace, or of another version. next() reads it too.
  const nlohmann::ordered_json& header();
  std::size_t header_line();
  // The header's `platform`: sim when it has none (every trace from before the member, and
  // every simulator trace); a FormatError at the header for another word or type.
  TracePlatform platform();

  // The next event: false at the end of the input or after the `end` event.
  bool next();
  const Event& event() const { return event_; }

  bool ended() const { return ended_; }                 // the `end` event was read
  std::size_t last_line() const { return last_line_; }  // the last non-blank line read (0: none)
  std::uint64_t events() const { return events_; }
  const std::string& name() const { return name_; }
  // Throws, at the last line, unless the `end` event was read.
  void require_end() const;
  [[noreturn]] void fail(std::size_t line, std::string_view what) const;

  struct Source;  // where the bytes come from (reader.cpp)

 private:
  // The next non-blank line, or false at the end of the input; sets `unterminated_`.
  bool next_line(std::string_view& line);
  bool fill();
  void read_header();

  std::unique_ptr<Source> source_;
  std::string name_;
  ReaderLimits limits_;
  std::unique_ptr<char[]> buffer_;  // capacity_ bytes + simdjson's padding
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // the unread bytes are [begin_, end_)
  std::size_t end_ = 0;
  std::size_t scanned_ = 0;  // [begin_, scanned_) holds no newline
  bool eof_ = false;
  bool unterminated_ = false;
  std::size_t number_ = 0;  // lines read, blank ones included
  std::size_t last_line_ = 0;
  bool header_read_ = false;
  std::size_t header_line_ = 0;
  nlohmann::ordered_json header_;
  Event event_;
  std::uint64_t events_ = 0;
  bool ended_ = false;
};

}  // namespace lockstep::trace
