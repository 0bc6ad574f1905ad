#include "model/schedule_file.hpp"

#include <charconv>

#include <fmt/format.h>

namespace lockstep::model {

namespace {

constexpr std::size_t kLineWidth = 100;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view path) : text_(text), path_(path) {}

  ScheduleFile parse() {
    ScheduleFile out;
    bool saw_header = false;
    bool in_choices = false;
    std::size_t pos = 0;
    while (pos <= text_.size()) {
      const std::size_t end = std::min(text_.find('\n', pos), text_.size());
      ++line_;
      const std::string_view raw = text_.substr(pos, end - pos);
      pos = end + 1;
      const std::string_view line = trim(raw);
      if (!saw_header) {
        if (line != fmt::format("# lockstep schedule v{}", kScheduleVersion))
          fail(1, fmt::format("not a lockstep schedule (the first line must be '# lockstep schedule v{}')",
                              kScheduleVersion));
        saw_header = true;
        continue;
      }
      if (line.empty() || line.front() == '#') continue;
      if (in_choices) {
        parse_choices(line, column_of(raw, line), out.choices);
        continue;
      }
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) fail(column_of(raw, line), "expected 'key: value'");
      const std::string_view key = trim(line.substr(0, colon));
      const std::string_view value = trim(line.substr(colon + 1));
      const std::size_t value_col = column_of(raw, value.empty() ? line : value);
      if (key == "scenario") {
        out.scenario = value;
        out.scenario_line = line_;
      } else if (key == "scenario_sha256")
        out.scenario_sha256 = value;
      else if (key == "seed")
        out.seed = number(value, value_col);
      else if (key == "execution")
        out.execution = number(value, value_col);
      else if (key == "strategy")
        out.strategy = value;
      else if (key == "property")
        out.property = value;
      else if (key == "param") {
        out.params.push_back(param(value, value_col));
        out.param_lines.push_back(line_);
      } else if (key == "mode")
        out.mode = mode(value, value_col);
      else if (key == "choices") {
        in_choices = true;
        out.choices_line = line_;
        parse_choices(value, value_col, out.choices);
      } else {
        fail(column_of(raw, key), fmt::format("unknown key '{}'", key));
      }
    }
    if (!saw_header) fail(1, "empty file");
    if (out.scenario.empty()) fail(1, "the schedule names no scenario");
    // Every schedule lockstep writes has the line, even for an execution with no choice to
    // make ("choices:" alone): without it the file was cut short or written by hand, and a
    // replay of no choices would report a verdict with no line to point at.
    if (out.choices_line == 0) {
      line_ = 1;
      fail(1, "the schedule has no 'choices:' line (cut short?)");
    }
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t column, const std::string& message) const {
    throw ScheduleParseError(fmt::format("{}:{}:{}: {}", path_, line_, column, message));
  }

  static std::size_t column_of(std::string_view line, std::string_view part) {
    return static_cast<std::size_t>(part.data() - line.data()) + 1;
  }

  std::uint64_t number(std::string_view s, std::size_t column) const {
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr != s.data() + s.size()) fail(column, fmt::format("'{}' is not a number", s));
    return v;
  }

  std::pair<std::string, std::string> param(std::string_view s, std::size_t column) const {
    const std::size_t eq = s.find('=');
    if (eq == std::string_view::npos) fail(column, "expected 'param: path=value'");
    return {std::string(trim(s.substr(0, eq))), std::string(trim(s.substr(eq + 1)))};
  }

  sim::EngineMode mode(std::string_view s, std::size_t column) const {
    if (s == "explore") return sim::EngineMode::explore;
    if (s == "timed") return sim::EngineMode::timed;
    fail(column, fmt::format("unknown mode '{}' (explore or timed)", s));
  }

  void parse_choices(std::string_view s, std::size_t column, sim::Schedule& out) const {
    std::size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && s[i] == ' ') ++i;
      if (i >= s.size()) break;
      const std::size_t start = i;
      while (i < s.size() && s[i] != ' ') ++i;
      std::string_view token = s.substr(start, i - start);
      const bool drain = !token.empty() && token.front() == 'd';
      if (drain) token.remove_prefix(1);
      const std::size_t offset = drain ? 1 : 0;
      const std::size_t star = token.find('*');
      const std::uint64_t thread = number(token.substr(0, star), column + start + offset);
      const std::uint64_t count =
          star == std::string_view::npos ? 1 : number(token.substr(star + 1), column + start + offset + star + 1);
      if (count == 0 || thread >= sim::kNoThread) fail(column + start, fmt::format("bad choice '{}'", token));
      // Run lengths are bounded before they are expanded: `0*4294967296` must not take the
      // memory of four billion choices to be refused.
      if (count > kMaxScheduleChoices - out.size())
        fail(column + start, fmt::format("the schedule expands to more than {} choices", kMaxScheduleChoices));
      const auto kind = drain ? sim::Choice::Kind::drain : sim::Choice::Kind::step;
      for (std::uint64_t k = 0; k < count; ++k) out.push_back(sim::Choice{kind, static_cast<sim::ThreadId>(thread)});
    }
  }

  std::string_view text_;
  std::string_view path_;
  std::size_t line_ = 0;
};

}  // namespace

std::string format_schedule(const ScheduleFile& s) {
  std::string out = fmt::format("# lockstep schedule v{}\n", kScheduleVersion);
  out += fmt::format("scenario: {}\n", s.scenario);
  if (!s.scenario_sha256.empty()) out += fmt::format("scenario_sha256: {}\n", s.scenario_sha256);
  for (const auto& [path, value] : s.params) out += fmt::format("param: {}={}\n", path, value);
  out += fmt::format("seed: {}\n", s.seed);
  out += fmt::format("mode: {}\n", s.mode == sim::EngineMode::timed ? "timed" : "explore");
  out += fmt::format("strategy: {}\n", s.strategy);
  out += fmt::format("execution: {}\n", s.execution);
  if (!s.property.empty()) out += fmt::format("property: {}\n", s.property);
  out += "choices:";
  std::size_t width = 8;
  for (std::size_t i = 0; i < s.choices.size();) {
    std::size_t run = 1;
    while (i + run < s.choices.size() && s.choices[i + run] == s.choices[i]) ++run;
    const char* prefix = s.choices[i].kind == sim::Choice::Kind::drain ? "d" : "";
    const std::string token = run == 1 ? fmt::format("{}{}", prefix, s.choices[i].thread)
                                       : fmt::format("{}{}*{}", prefix, s.choices[i].thread, run);
    if (width + token.size() + 1 > kLineWidth) {
      out += "\n ";
      width = 1;
    }
    out += ' ';
    out += token;
    width += token.size() + 1;
    i += run;
  }
  out += '\n';
  return out;
}

ScheduleFile parse_schedule(std::string_view text, std::string_view path) { return Parser(text, path).parse(); }

}  // namespace lockstep::model
