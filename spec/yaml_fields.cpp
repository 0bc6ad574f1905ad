#include "spec/yaml_fields.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "spec/scenario.hpp"

namespace lockstep::scenario::yaml {

namespace {

// An integer as written: decimal or 0x hex, with an optional leading minus.
struct ParsedInteger {
  enum class Status : std::uint8_t { ok, not_integer, too_large } status = Status::not_integer;
  bool negative = false;
  std::uint64_t magnitude = 0;
};

ParsedInteger parse_integer(std::string_view text) {
  ParsedInteger out;
  if (!text.empty() && text.front() == '-') {
    out.negative = true;
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  // from_chars alone would accept a second sign or stop early; require every character.
  if (text.empty() || text.front() == '-' || text.front() == '+') return out;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out.magnitude, base);
  if (end != text.data() + text.size()) return out;
  if (ec == std::errc::result_out_of_range) {
    out.status = ParsedInteger::Status::too_large;
  } else if (ec == std::errc()) {
    out.status = ParsedInteger::Status::ok;
  }
  return out;
}

ParsedInteger parse_integer_node(const Source& src, const YAML::Node& node, std::string_view what) {
  if (!node.IsScalar()) src.fail(node, fmt::format("{}: expected an integer, got {}", what, describe(node)));
  const std::string& text = node.Scalar();
  ParsedInteger parsed = parse_integer(text);
  if (parsed.status == ParsedInteger::Status::not_integer)
    src.fail(node, fmt::format("{}: expected an integer, got '{}'", what, text));
  return parsed;
}

constexpr std::uint64_t kInt64MinMagnitude = std::uint64_t{1} << 63;

}  // namespace

std::string Source::where(const YAML::Mark& mark) const {
  if (mark.is_null()) return unplaced_.is_null() ? file_ : where(unplaced_);
  return fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1);
}

std::string Source::where(const YAML::Node& node) const { return where(node.Mark()); }

std::string Source::where_in(const YAML::Node& scalar, std::size_t offset) const {
  YAML::Mark mark = scalar.Mark();
  if (mark.is_null()) return where(mark);
  // yaml-cpp tags quoted scalars "!" and plain ones "?"; a quoted scalar's mark is its quote.
  const int quote = scalar.Tag() == "!" ? 1 : 0;
  mark.column += quote + static_cast<int>(offset);
  return where(mark);
}

void Source::fail(const YAML::Node& node, const std::string& message) const { fail_at(where(node), message); }

void Source::fail_at(const std::string& where, const std::string& message) const {
  throw ScenarioError(fmt::format("{}: {}", where, message));
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return fmt::format("'{}'", node.Scalar());
    default:
      return "nothing";
  }
}

std::string join(std::span<const std::string_view> names) { return fmt::format("{}", fmt::join(names, ", ")); }

std::string join(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

bool is_identifier(std::string_view text) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.empty() || !alpha(text.front())) return false;
  for (char c : text)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

std::string scalar(const Source& src, const YAML::Node& node, std::string_view what) {
  if (!node.IsScalar()) src.fail(node, fmt::format("{}: expected a string, got {}", what, describe(node)));
  return node.Scalar();
}

std::string identifier(const Source& src, const YAML::Node& node, std::string_view what) {
  std::string text = scalar(src, node, what);
  // true and false are constants in expressions, so they cannot name anything.
  if (!is_identifier(text) || text == "true" || text == "false") {
    src.fail(node, fmt::format("{}: '{}' is not a valid name (letters, digits and _, not starting with a digit)", what,
                               text));
  }
  return text;
}

std::int64_t integer(const Source& src, const YAML::Node& node, std::string_view what, std::int64_t lo,
                     std::int64_t hi) {
  const ParsedInteger p = parse_integer_node(src, node, what);
  const std::uint64_t limit = p.negative ? kInt64MinMagnitude : kInt64MinMagnitude - 1;
  if (p.status == ParsedInteger::Status::ok && p.magnitude <= limit) {
    const auto value = p.negative ? static_cast<std::int64_t>(0 - p.magnitude) : static_cast<std::int64_t>(p.magnitude);
    if (value >= lo && value <= hi) return value;
  }
  src.fail(node, fmt::format("{}: {} is out of range ({}..{})", what, node.Scalar(), lo, hi));
}

std::uint64_t unsigned_integer(const Source& src, const YAML::Node& node, std::string_view what, std::uint64_t lo,
                               std::uint64_t hi) {
  const ParsedInteger p = parse_integer_node(src, node, what);
  const bool zero = p.magnitude == 0;
  if (p.status == ParsedInteger::Status::ok && (!p.negative || zero) && p.magnitude >= lo && p.magnitude <= hi)
    return p.magnitude;
  src.fail(node, fmt::format("{}: {} is out of range ({}..{})", what, node.Scalar(), lo, hi));
}

double real(const Source& src, const YAML::Node& node, std::string_view what, double lo, double hi) {
  if (!node.IsScalar()) src.fail(node, fmt::format("{}: expected a number, got {}", what, describe(node)));
  const std::string& text = node.Scalar();
  // from_chars also takes "inf", "nan" and hex digits in some forms; demand a digit first.
  const std::size_t digits = !text.empty() && text.front() == '-' ? 1 : 0;
  double value = 0;
  const char* end = text.data() + text.size();
  const bool digit_first = digits < text.size() && text[digits] >= '0' && text[digits] <= '9';
  const auto [stop, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
  if (!digit_first || stop != end || ec == std::errc::invalid_argument)
    src.fail(node, fmt::format("{}: expected a number, got '{}'", what, text));
  if (ec != std::errc() || !std::isfinite(value) || value < lo || value > hi)
    src.fail(node, fmt::format("{}: {} is out of range ({:.15g}..{:.15g})", what, text, lo, hi));
  return value;
}

bool boolean(const Source& src, const YAML::Node& node, std::string_view what) {
  if (node.IsScalar() && node.Scalar() == "true") return true;
  if (node.IsScalar() && node.Scalar() == "false") return false;
  src.fail(node, fmt::format("{}: expected true or false, got {}", what, describe(node)));
}

std::uint64_t word(const Source& src, const YAML::Node& node, std::string_view what) {
  const ParsedInteger p = parse_integer_node(src, node, what);
  if (p.status == ParsedInteger::Status::ok && (!p.negative || p.magnitude <= kInt64MinMagnitude))
    return p.negative ? 0 - p.magnitude : p.magnitude;
  src.fail(node, fmt::format("{}: {} does not fit in a 64-bit word", what, node.Scalar()));
}

std::size_t choice(const Source& src, const YAML::Node& node, std::string_view what,
                   std::span<const std::string_view> names) {
  const std::string text = scalar(src, node, what);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return i;
  src.fail(node, fmt::format("unknown {} '{}' (expected one of: {})", what, text, join(names)));
}

void require_map(const Source& src, const YAML::Node& node, std::string_view what) {
  if (!node.IsMap()) src.fail(node, fmt::format("{}: expected a map, got {}", what, describe(node)));
}

void require_list(const Source& src, const YAML::Node& node, std::string_view what) {
  if (!node.IsSequence()) src.fail(node, fmt::format("{}: expected a list, got {}", what, describe(node)));
}

Map::Map(const Source& src, const YAML::Node& node, std::string section, std::vector<std::string_view> keys)
    : src_(&src), node_(node), section_(std::move(section)), keys_(std::move(keys)) {
  require_map(src, node, section_);
  for (const auto& pair : node) {
    const YAML::Node& key = pair.first;
    if (!key.IsScalar()) src.fail(key, fmt::format("expected a name as key in {}, got {}", section_, describe(key)));
    const std::string& name = key.Scalar();
    bool known = false;
    for (std::string_view k : keys_) known = known || k == name;
    if (!known) src.fail(key, fmt::format("unknown key '{}' in {} (expected one of: {})", name, section_, join(keys_)));
    // yaml-cpp keeps duplicate keys and lookups see only the first: reject them.
    if (const Entry* first = find(name); first != nullptr)
      src.fail(key, fmt::format("duplicate key '{}' in {} (first at {})", name, section_, src.where(first->key_node)));
    entries_.push_back(Entry{name, key, pair.second});
  }
}

const Map::Entry* Map::find(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

void Map::check_allowed(std::string_view key) const {
  for (std::string_view k : keys_)
    if (k == key) return;
  // Asking for a key the section does not declare would silently read nothing.
  throw std::logic_error(fmt::format("key '{}' is not declared for {}", key, section_));
}

std::optional<YAML::Node> Map::get(std::string_view key) const {
  check_allowed(key);
  if (const Entry* e = find(key)) return e->value;
  return std::nullopt;
}

std::optional<YAML::Node> Map::key_node(std::string_view key) const {
  check_allowed(key);
  if (const Entry* e = find(key)) return e->key_node;
  return std::nullopt;
}

YAML::Node Map::required(std::string_view key) const {
  if (std::optional<YAML::Node> value = get(key)) return *value;
  src_->fail(node_, fmt::format("missing required key '{}' in {}", key, section_));
}

std::int64_t Map::integer_or(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t fallback) const {
  const std::optional<YAML::Node> value = get(key);
  return value ? integer(*src_, *value, key, lo, hi) : fallback;
}

std::uint64_t Map::unsigned_or(std::string_view key, std::uint64_t lo, std::uint64_t hi, std::uint64_t fallback) const {
  const std::optional<YAML::Node> value = get(key);
  return value ? unsigned_integer(*src_, *value, key, lo, hi) : fallback;
}

std::string Map::scalar_or(std::string_view key, std::string fallback) const {
  const std::optional<YAML::Node> value = get(key);
  return value ? scalar(*src_, *value, key) : std::move(fallback);
}

double Map::real_or(std::string_view key, double lo, double hi, double fallback) const {
  const std::optional<YAML::Node> value = get(key);
  return value ? real(*src_, *value, key, lo, hi) : fallback;
}

bool Map::boolean_or(std::string_view key, bool fallback) const {
  const std::optional<YAML::Node> value = get(key);
  return value ? boolean(*src_, *value, key) : fallback;
}

}  // namespace lockstep::scenario::yaml
