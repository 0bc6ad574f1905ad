// One trace event (a JSON object on one line) read into its members, for the trace model.
//
// simdjson's On Demand parser walks each line once and keeps the members as they are
// (numbers, strings as views into the parser's buffer, booleans): a trace of a million
// events opens in a fraction of the time a DOM per line takes (bench/README.md, "Viewer").
// Typed access names the line and the member when one is missing or has the wrong type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace lockstep::view {

class EventReader {
 public:
  // Reads `line`, which must be followed in memory by at least simdjson::SIMDJSON_PADDING
  // readable bytes (a line of a simdjson::padded_string is). `unterminated`: the line is
  // the file's last and has no newline, so invalid JSON there means a truncated file.
  // Throws TraceError (line `number`) for invalid JSON or a line that is not an object.
  void read(std::string_view line, std::size_t number, bool unterminated);

  std::size_t line() const { return line_; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::uint64_t u64(std::string_view key) const;
  std::int64_t i64(std::string_view key) const;
  // A thread or CPU number: -1 (none) when allowed, otherwise 0 <= n < kMaxIndex.
  int index(std::string_view key, bool none_allowed) const;
  bool flag(std::string_view key) const;
  std::string_view text(std::string_view key) const;  // valid until the next read()
  std::uint64_t address(std::string_view key) const;  // a hex string such as "0x1f0"
  std::optional<std::uint64_t> opt_u64(std::string_view key) const;
  std::optional<std::uint64_t> opt_address(std::string_view key) const;

  // Thread and CPU numbers index vectors; a larger one is a corrupt file, not a big machine.
  static constexpr std::int64_t kMaxIndex = 1 << 16;

 private:
  struct Member {
    enum class Kind { unsigned_integer, signed_integer, floating, string, boolean, other } kind = Kind::other;
    std::string_view key;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    std::string_view s;
    bool b = false;
  };
  const Member* find(std::string_view key) const;
  const Member& get(std::string_view key) const;

  simdjson::ondemand::parser parser_;
  std::vector<Member> members_;
  mutable std::size_t hint_ = 0;  // where find() starts looking
  std::size_t line_ = 0;
};

}  // namespace lockstep::view
