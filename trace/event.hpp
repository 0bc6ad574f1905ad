// One event of a trace (a JSON object on one line), read into its members (trace/reader.hpp
// hands them out one at a time).
//
// simdjson's On Demand parser walks each line once and keeps the members as they are
// (numbers, strings as views into the parser's buffer, booleans): a trace of a million
// events opens in a fraction of the time a DOM per line takes (bench/README.md, "Viewer").
// Typed access throws FormatError naming the file, the line and the member when one is
// missing or has the wrong type. Keys are the constants of trace/format.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "trace/address_names.hpp"
#include "trace/format.hpp"

namespace lockstep::trace {

class Event {
 public:
  std::size_t line() const { return line_; }
  std::string_view text() const { return text_; }  // the line itself, valid until the next read
  EventKind kind() const { return kind_; }
  std::string_view kind_name() const;           // `ev`, also for a kind this build does not know
  std::uint64_t time() const { return time_; }  // `t`

  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::uint64_t u64(std::string_view key) const;
  std::int64_t i64(std::string_view key) const;
  // A thread or CPU number: -1 (none) when allowed, otherwise 0 <= n < kMaxIndex.
  int index(std::string_view key, bool none_allowed) const;
  bool flag(std::string_view key) const;
  std::string_view text(std::string_view key) const;  // valid until the next read
  std::uint64_t address(std::string_view key) const;  // a hex string such as "0x1f0"
  std::optional<std::uint64_t> opt_u64(std::string_view key) const;
  std::optional<std::uint64_t> opt_address(std::string_view key) const;
  std::optional<bool> opt_flag(std::string_view key) const;

  // A `label` event's region (its layout members included).
  NamedRegion region() const;
  // The whole line as a JSON DOM (slow: for labels, tests and rare events).
  nlohmann::json json() const;
  // One member as JSON, whatever its type (the Chrome export copies members into `args`).
  template <class Json>
  Json member_json(std::string_view key) const;

  // Throws FormatError naming this event's file and line.
  [[noreturn]] void fail(std::string_view what) const;

 private:
  friend class Reader;
  struct Member {
    enum class Kind { unsigned_integer, signed_integer, floating, string, boolean, other } kind = Kind::other;
    std::string_view key;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double d = 0;
    std::string_view s;  // a string's value; for `other`, its raw JSON text
    bool b = false;
  };

  // Reads `line`, which must be followed in memory by at least simdjson::SIMDJSON_PADDING
  // readable bytes. `unterminated`: the line is the input's last and has no newline, so
  // invalid JSON there means a truncated file. Checks that the line is an object with `t`
  // and `ev`.
  void read(std::string_view line, std::size_t number, bool unterminated);
  const Member* find(std::string_view key) const;
  const Member& get(std::string_view key) const;

  const std::string* file_ = nullptr;  // the reader's name for its input
  simdjson::ondemand::parser parser_;
  std::vector<Member> members_;
  mutable std::size_t hint_ = 0;  // where find() starts looking
  std::size_t line_ = 0;
  std::string_view text_;
  EventKind kind_ = EventKind::other;
  std::uint64_t time_ = 0;
};

template <class Json>
Json Event::member_json(std::string_view key) const {
  const Member& m = get(key);
  switch (m.kind) {
    case Member::Kind::unsigned_integer:
      return Json(m.u);
    case Member::Kind::signed_integer:
      return Json(m.i);
    case Member::Kind::floating:
      return Json(m.d);
    case Member::Kind::string:
      return Json(std::string(m.s));
    case Member::Kind::boolean:
      return Json(m.b);
    case Member::Kind::other:
      break;
  }
  return Json::parse(m.s);
}

}  // namespace lockstep::trace
