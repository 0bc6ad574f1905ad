// Strict reading of YAML scenario files: typed fields, unknown and duplicate keys, range
// checks and enum names. Every failure is a ScenarioError that starts "file:line:col: "
// (1-based, from the offending node's mark), so a user can jump to the mistake.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace lockstep::scenario::yaml {

// The file the nodes come from; formats positions and throws.
class Source {
 public:
  explicit Source(std::string file) : file_(std::move(file)) {}
  // Nodes without a mark (keys a sweep inserted) are reported at `unplaced` instead.
  Source(std::string file, const YAML::Mark& unplaced) : file_(std::move(file)), unplaced_(unplaced) {}
  const std::string& file() const { return file_; }

  // "file:line:col"; just "file" when neither the node nor `unplaced` has a mark.
  std::string where(const YAML::Node& node) const;
  std::string where(const YAML::Mark& mark) const;
  // Column `offset` characters into a scalar's text (expression errors): exact for plain
  // scalars and for quoted ones without escapes.
  std::string where_in(const YAML::Node& scalar, std::size_t offset) const;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;
  [[noreturn]] void fail_at(const std::string& where, const std::string& message) const;

 private:
  std::string file_;
  YAML::Mark unplaced_ = YAML::Mark::null_mark();
};

// "a map", "a list", "'text'": what a node is, for "expected X, got Y" messages.
std::string describe(const YAML::Node& node);
// "a, b, c", for "expected one of" messages.
std::string join(std::span<const std::string_view> names);
std::string join(const std::vector<std::string>& names);

bool is_identifier(std::string_view text);

// Scalar readers. `what` names the field in messages ("cpus", "var").
std::string scalar(const Source& src, const YAML::Node& node, std::string_view what);
std::string identifier(const Source& src, const YAML::Node& node, std::string_view what);
std::int64_t integer(const Source& src, const YAML::Node& node, std::string_view what, std::int64_t lo,
                     std::int64_t hi);
std::uint64_t unsigned_integer(const Source& src, const YAML::Node& node, std::string_view what, std::uint64_t lo,
                               std::uint64_t hi);
// A finite real number: decimal digits with an optional fraction and exponent and an optional
// leading minus ("1.5", "40", "2e3"); not "+1", ".inf", "nan" or hex.
double real(const Source& src, const YAML::Node& node, std::string_view what, double lo, double hi);
// `true` or `false`, nothing else (not YAML 1.1's yes/no/on/off).
bool boolean(const Source& src, const YAML::Node& node, std::string_view what);
// A 64-bit memory word: -2^63 .. 2^64-1, negative values as two's complement.
std::uint64_t word(const Source& src, const YAML::Node& node, std::string_view what);
// Index of the node's value in `names`; the message lists them.
std::size_t choice(const Source& src, const YAML::Node& node, std::string_view what,
                   std::span<const std::string_view> names);

void require_map(const Source& src, const YAML::Node& node, std::string_view what);
void require_list(const Source& src, const YAML::Node& node, std::string_view what);

// A YAML map read strictly: only `keys` may appear, each at most once.
class Map {
 public:
  Map(const Source& src, const YAML::Node& node, std::string section, std::vector<std::string_view> keys);

  const Source& source() const { return *src_; }
  const YAML::Node& node() const { return node_; }
  const std::string& section() const { return section_; }

  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::optional<YAML::Node> get(std::string_view key) const;
  std::optional<YAML::Node> key_node(std::string_view key) const;  // the key itself
  YAML::Node required(std::string_view key) const;

  std::int64_t integer_or(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t fallback) const;
  std::uint64_t unsigned_or(std::string_view key, std::uint64_t lo, std::uint64_t hi, std::uint64_t fallback) const;
  std::string scalar_or(std::string_view key, std::string fallback) const;
  double real_or(std::string_view key, double lo, double hi, double fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Entry* find(std::string_view key) const;
  void check_allowed(std::string_view key) const;

  const Source* src_;
  YAML::Node node_;
  std::string section_;
  std::vector<std::string_view> keys_;
  std::vector<Entry> entries_;
};

}  // namespace lockstep::scenario::yaml
