#include "trace/event.hpp"

#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

#include "trace/error.hpp"
#include "trace/label_event.hpp"

namespace lockstep::trace {

void Event::fail(std::string_view what) const {
  throw FormatError(file_ != nullptr ? *file_ : std::string(), line_, std::string(what));
}

void Event::read(std::string_view line, std::size_t number, bool unterminated) {
  namespace od = simdjson::ondemand;
  line_ = number;
  text_ = line;
  members_.clear();
  hint_ = 0;
  const auto invalid = [&] {
    fail(unterminated ? "the last line is cut off (the file is truncated)" : "not valid JSON");
  };
  // Text after the object (simdjson stops at its end): the line must end with its '}'.
  const std::size_t end = line.find_last_not_of(" \t\r");
  if (end != std::string_view::npos && line[0] == '{' && line[end] != '}') invalid();
  try {
    od::document doc = parser_.iterate(
        simdjson::padded_string_view(line.data(), line.size(), line.size() + simdjson::SIMDJSON_PADDING));
    if (doc.type() != od::json_type::object) fail("an event must be a JSON object");
    od::object object = doc.get_object();
    for (od::field field : object) {
      Member m;
      m.key = field.unescaped_key();
      od::value v = field.value();
      switch (v.type()) {
        case od::json_type::number:
          switch (v.get_number_type()) {
            case od::number_type::signed_integer:
              m.i = v.get_int64();
              m.kind = Member::Kind::signed_integer;
              break;
            case od::number_type::unsigned_integer:
              m.u = v.get_uint64();
              m.kind = Member::Kind::unsigned_integer;
              break;
            default:
              m.d = v.get_double();
              m.kind = Member::Kind::floating;
          }
          break;
        case od::json_type::string:
          m.s = v.get_string();
          m.kind = Member::Kind::string;
          break;
        case od::json_type::boolean:
          m.b = v.get_bool();
          m.kind = Member::Kind::boolean;
          break;
        case od::json_type::array: {
          od::array array = v.get_array();
          m.s = array.raw_json();
          break;
        }
        case od::json_type::object: {
          od::object inner = v.get_object();
          m.s = inner.raw_json();
          break;
        }
        default:  // null
          (void)v.is_null();
          m.s = "null";
      }
      members_.push_back(m);
    }
  } catch (const simdjson::simdjson_error&) {
    invalid();
  }
  // Every event has a time and a kind, whether or not this build knows the kind.
  time_ = u64(field::t);
  kind_ = event_kind(text(field::ev));
}

std::string_view Event::kind_name() const { return text(field::ev); }

// Readers ask for members mostly in the order the writer writes them, so the search
// starts after the last member found and usually succeeds at once.
const Event::Member* Event::find(std::string_view key) const {
  const std::size_t n = members_.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = hint_ + k < n ? hint_ + k : hint_ + k - n;
    const Member& m = members_[i];
    if (m.key.size() == key.size() && m.key[0] == key[0] && m.key == key) {
      hint_ = i + 1 < n ? i + 1 : 0;
      return &m;
    }
  }
  return nullptr;
}

const Event::Member& Event::get(std::string_view key) const {
  const Member* m = find(key);
  if (m == nullptr) fail(fmt::format("the event has no '{}'", key));
  return *m;
}

std::uint64_t Event::u64(std::string_view key) const {
  const Member& m = get(key);
  if (m.kind == Member::Kind::unsigned_integer) return m.u;
  if (m.kind == Member::Kind::signed_integer && m.i >= 0) return static_cast<std::uint64_t>(m.i);
  fail(fmt::format("'{}' must be an unsigned integer", key));
}

std::int64_t Event::i64(std::string_view key) const {
  const Member& m = get(key);
  if (m.kind == Member::Kind::signed_integer) return m.i;
  fail(fmt::format("'{}' must be an integer", key));  // unsigned_integer: above INT64_MAX
}

int Event::index(std::string_view key, bool none_allowed) const {
  const std::int64_t n = i64(key);
  if ((n == -1 && none_allowed) || (n >= 0 && n < kMaxIndex)) return static_cast<int>(n);
  fail(fmt::format("'{}' is {}, out of range", key, n));
}

bool Event::flag(std::string_view key) const {
  const Member& m = get(key);
  if (m.kind != Member::Kind::boolean) fail(fmt::format("'{}' must be a boolean", key));
  return m.b;
}

std::string_view Event::text(std::string_view key) const {
  const Member& m = get(key);
  if (m.kind != Member::Kind::string) fail(fmt::format("'{}' must be a string", key));
  return m.s;
}

std::uint64_t Event::address(std::string_view key) const {
  const std::string_view s = text(key);
  const std::string_view digits = s.starts_with("0x") ? s.substr(2) : std::string_view();
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size())
    fail(fmt::format("'{}' must be a hex address like \"0x1f0\"", key));
  return value;
}

std::optional<std::uint64_t> Event::opt_u64(std::string_view key) const {
  return has(key) ? std::optional(u64(key)) : std::nullopt;
}

std::optional<std::uint64_t> Event::opt_address(std::string_view key) const {
  return has(key) ? std::optional(address(key)) : std::nullopt;
}

std::optional<bool> Event::opt_flag(std::string_view key) const {
  return has(key) ? std::optional(flag(key)) : std::nullopt;
}

nlohmann::json Event::json() const {
  nlohmann::json j = nlohmann::json::parse(text_, nullptr, false);
  if (j.is_discarded()) fail("not valid JSON");  // simdjson accepted it; nlohmann is stricter about little
  return j;
}

NamedRegion Event::region() const {
  // Labels are few and may hold an array (`fields`): the line is read again whole.
  try {
    return region_of_label(json());
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
}

}  // namespace lockstep::trace
