#include "cli/junit.hpp"

#include <iterator>

#include <fmt/format.h>

namespace lockstep::cli {

using report::RowReport;
using report::ScenarioReport;

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

constexpr long kMalformed = -1;

// Bytes in a UTF-8 sequence with this lead byte, 0 for a byte that cannot lead one.
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 0;
}

// Decodes the UTF-8 sequence at `s[i]` and advances `i` past it. A malformed, overlong or
// surrogate sequence gives kMalformed, and `i` advances by one byte only.
long decode_utf8(std::string_view s, std::size_t& i) {
  static constexpr long kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  static constexpr long kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  const std::size_t length = sequence_length(static_cast<unsigned char>(s[i]));
  if (length == 0 || i + length > s.size()) {
    ++i;
    return kMalformed;
  }
  long cp = static_cast<unsigned char>(s[i]) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(s[i + k]);
    if ((next & 0xC0) != 0x80) {
      ++i;
      return kMalformed;
    }
    cp = (cp << 6) | (next & 0x3F);
  }
  if (cp < kMinimum[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kMalformed;
  }
  i += length;
  return cp;
}

bool allowed_in_xml(long cp) {
  if (cp == kMalformed) return false;
  if (cp < 0x20) return cp == 0x9 || cp == 0xA || cp == 0xD;
  return cp != 0xFFFE && cp != 0xFFFF;
}

const char* entity_of(char c, bool attribute) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&apos;";
    case '\t':
      return attribute ? "&#9;" : nullptr;
    case '\n':
      return attribute ? "&#10;" : nullptr;
    case '\r':
      return "&#13;";  // a parser turns a literal CR into LF even in content
    default:
      return nullptr;
  }
}

std::string case_name(const std::string& name, const RowReport& r) {
  if (r.params.empty()) return name;
  std::string out = name + " [";
  for (std::size_t i = 0; i < r.params.size(); ++i)
    out += fmt::format("{}{}={}", i == 0 ? "" : ", ", r.params[i].first, r.params[i].second);
  return out + "]";
}

std::string failure_body(const RowReport& r) {
  std::string out;
  if (!r.property.empty()) out += fmt::format("property: {}\n", r.property);
  if (!r.message.empty()) out += fmt::format("message: {}\n", r.message);
  if (!r.replay_command.empty()) out += fmt::format("replay: {}\n", r.replay_command);
  if (out.empty()) out = fmt::format("the scenario passed, but {} was expected\n", r.expected);
  return out;
}

std::string system_out(const RowReport& r) {
  std::string out = fmt::format("result: {}\nexpected: {}\n", r.outcome(), r.expected);
  if (!r.message.empty()) out += fmt::format("message: {}\n", r.message);
  out += fmt::format("strategy: {}, seed {}, {} executions{}\n", r.strategy, r.seed, r.executions,
                     r.exhaustive ? " (exhaustive)" : "");
  out += fmt::format("steps: {}, virtual time: {} ns, simulated ops: {}\n", r.steps, r.virtual_time_ns, r.sim_ops);
  if (!r.trace_sha256.empty()) out += fmt::format("trace_sha256: {}\n", r.trace_sha256);
  if (!r.trace_path.empty()) out += fmt::format("trace: {}\n", r.trace_path);
  if (!r.schedule_path.empty()) out += fmt::format("schedule: {}\n", r.schedule_path);
  return out;
}

void append_case(std::string& out, const ScenarioReport& s, const RowReport& r) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n", xml_escape(s.scenario, true),
                 xml_escape(case_name(s.name, r), true), r.elapsed_s);
  if (!r.matched)
    fmt::format_to(it, "      <failure message=\"{}\" type=\"mismatch\">{}</failure>\n",
                   xml_escape(fmt::format("expected {}, got {}", r.expected, r.outcome()), true),
                   xml_escape(failure_body(r)));
  fmt::format_to(it, "      <system-out>{}</system-out>\n", xml_escape(system_out(r)));
  out += "    </testcase>\n";
}

}  // namespace

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const long cp = decode_utf8(text, i);
    if (!allowed_in_xml(cp)) {
      out += kReplacement;
    } else if (const char* entity = cp < 0x80 ? entity_of(static_cast<char>(cp), attribute) : nullptr) {
      out += entity;
    } else {
      out += text.substr(start, i - start);
    }
  }
  return out;
}

std::string junit_xml(const std::vector<ScenarioReport>& reports) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  double time_s = 0;
  std::string cases;
  for (const ScenarioReport& s : reports) {
    for (const RowReport& r : s.rows) {
      ++tests;
      failures += r.matched ? 0 : 1;
      time_s += r.elapsed_s;
      append_case(cases, s, r);
    }
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\"", tests, failures, time_s);
  out += fmt::format("<testsuites name=\"lockstep\" {}>\n", counts);
  out += fmt::format("  <testsuite name=\"lockstep\" {} skipped=\"0\">\n", counts);
  out += cases;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace lockstep::cli
