#include "measure/sysfs.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

namespace lockstep::measure {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kKiB = 1024;

[[noreturn]] void malformed(const fs::path& path, const std::string& text, std::string_view expected) {
  throw std::runtime_error(fmt::format("{}: expected {}, got '{}'", path.string(), expected, text));
}

std::uint64_t parse_number(std::string_view text, const fs::path& path, const std::string& whole) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) malformed(path, whole, "a number");
  return value;
}

}  // namespace

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const auto not_space = [](unsigned char ch) { return ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r'; };
  text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
  text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
  return text;
}

std::string required_text(const fs::path& path) {
  std::optional<std::string> text = read_text(path);
  if (!text) throw std::runtime_error(fmt::format("{}: cannot read", path.string()));
  return *text;
}

int parse_int(const std::string& text, const fs::path& path) {
  const std::uint64_t value = parse_number(text, path, text);
  if (value > 1'000'000) malformed(path, text, "a small number");
  return static_cast<int>(value);
}

std::vector<int> parse_cpulist(const std::string& text, const fs::path& path) {
  std::set<int> cpus;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part(text.data() + start, comma - start);
    const std::size_t dash = part.find('-');
    const auto first = static_cast<int>(parse_number(part.substr(0, dash), path, text));
    const auto last =
        dash == std::string_view::npos ? first : static_cast<int>(parse_number(part.substr(dash + 1), path, text));
    if (last < first || last > 1'000'000) malformed(path, text, "a CPU list such as 0-3,8");
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
    start = comma + 1;
  }
  return {cpus.begin(), cpus.end()};
}

std::uint64_t parse_size(const std::string& text, const fs::path& path) {
  std::string_view digits = text;
  std::uint64_t unit = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        unit = kKiB;
        break;
      case 'M':
        unit = kKiB * kKiB;
        break;
      case 'G':
        unit = kKiB * kKiB * kKiB;
        break;
      default:
        break;
    }
    if (unit != 1) digits.remove_suffix(1);
  }
  return parse_number(digits, path, text) * unit;
}

std::vector<HostCache> read_caches(const fs::path& cache_dir) {
  std::map<int, HostCache> by_level;  // the first data or unified cache of each level
  for (int i = 0;; ++i) {
    const fs::path index = cache_dir / fmt::format("index{}", i);
    if (!fs::is_directory(index)) break;
    if (required_text(index / "type") == "Instruction") continue;
    HostCache c;
    c.level = parse_int(required_text(index / "level"), index / "level");
    c.size_bytes = parse_size(required_text(index / "size"), index / "size");
    if (std::optional<std::string> ways = read_text(index / "ways_of_associativity"))
      c.ways = static_cast<std::uint32_t>(parse_int(*ways, index / "ways_of_associativity"));
    if (std::optional<std::string> shared = read_text(index / "shared_cpu_list"))
      c.shared_cpus = parse_cpulist(*shared, index / "shared_cpu_list");
    by_level.try_emplace(c.level, c);
  }
  std::vector<HostCache> out;
  out.reserve(by_level.size());
  for (auto& [level, c] : by_level) out.push_back(c);
  return out;
}

}  // namespace lockstep::measure
