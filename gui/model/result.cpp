#include "gui/model/result.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/result_members.hpp"

namespace lockstep::view {

namespace {

// Ordered, so figures are listed in the order the file (docs/results.md) gives them.
using Json = nlohmann::ordered_json;

// Where a row's member goes (report/result_members.hpp declares them): how the run went and
// the machine's scalar measurements are its key figures; the verdict, the files, the
// measurements drawn on their own and the structures with pages of their own are parsed by
// name below; a member the table does not declare is one of the workload's figures
// (report/workload_figures.hpp).
enum class Shown { key_figure, parsed, workload };

Shown shown_as(std::string_view key) {
  const report::ResultMember* m = report::find_result_member(key);
  if (m == nullptr) return Shown::workload;
  if (m->group == report::MemberGroup::run) return Shown::key_figure;
  if (m->group == report::MemberGroup::machine && (m->scalar || key == "machine")) return Shown::key_figure;
  return Shown::parsed;
}

[[noreturn]] void fail(std::string_view what) { throw ResultError(0, std::string(what)); }

// A value shown as text: strings bare, numbers as the file has them, lists in brackets.
std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + value_text(v[i]);
    return s + "]";
  }
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

// Typed access to one object's members, naming the member's path when it is missing or mistyped.
class Members {
 public:
  Members(const Json& object, std::string path) : object_(object), path_(std::move(path)) {}

  bool has(const char* key) const { return object_.contains(key); }
  std::string where(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  const Json& get(const char* key) const {
    if (!has(key)) fail(fmt::format("the result has no '{}'", where(key)));
    return object_.at(key);
  }
  std::string text(const char* key) const {
    const Json& v = get(key);
    if (!v.is_string()) fail(fmt::format("'{}' must be a string", where(key)));
    return v.get<std::string>();
  }
  std::string opt_text(const char* key) const { return has(key) ? text(key) : std::string(); }
  std::optional<bool> opt_flag(const char* key) const {
    if (!has(key)) return std::nullopt;
    if (!get(key).is_boolean()) fail(fmt::format("'{}' must be true or false", where(key)));
    return get(key).get<bool>();
  }
  const Json& array(const char* key) const {
    if (!get(key).is_array()) fail(fmt::format("'{}' must be a list", where(key)));
    return get(key);
  }
  const Json& object(const char* key) const {
    if (!get(key).is_object()) fail(fmt::format("'{}' must be an object", where(key)));
    return get(key);
  }
  const Json& json() const { return object_; }
  const std::string& path() const { return path_; }

 private:
  const Json& object_;
  std::string path_;
};

std::uint64_t unsigned_at(const Json& v, const std::string& where) {
  if (!v.is_number_unsigned()) fail(fmt::format("'{}' must be an unsigned integer", where));
  return v.get<std::uint64_t>();
}

double number_at(const Json& v, const std::string& where) {
  if (!v.is_number()) fail(fmt::format("'{}' must be a number", where));
  return v.get<double>();
}

std::vector<HistogramBin> parse_histogram(const Members& m) {
  std::vector<HistogramBin> bins;
  const Json& list = m.array("histogram");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", m.where("histogram"), i);
    if (!list[i].is_object()) fail(fmt::format("'{}' must be an object {{lo_ns, hi_ns, count}}", at));
    const Members bin(list[i], at);
    HistogramBin b{unsigned_at(bin.get("lo_ns"), at + ".lo_ns"), unsigned_at(bin.get("hi_ns"), at + ".hi_ns"),
                   unsigned_at(bin.get("count"), at + ".count")};
    if (b.hi_ns <= b.lo_ns) fail(fmt::format("'{}' has hi_ns {} not above lo_ns {}", at, b.hi_ns, b.lo_ns));
    bins.push_back(b);
  }
  return bins;
}

void parse_c2c(const Members& m, ResultRow& row) {
  if (m.has("c2c_cpus")) {
    const Json& cpus = m.array("c2c_cpus");
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      if (!cpus[i].is_number_integer()) fail(fmt::format("'{}[{}]' must be an integer", m.where("c2c_cpus"), i));
      row.c2c_cpus.push_back(cpus[i].get<int>());
    }
  }
  if (!m.has("c2c_ns")) return;
  const Json& matrix = m.array("c2c_ns");
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", m.where("c2c_ns"), i);
    if (!matrix[i].is_array() || matrix[i].size() != matrix.size())
      fail(fmt::format("'{}' must be a list of {} numbers (the matrix is square)", at, matrix.size()));
    std::vector<double>& out = row.c2c_ns.emplace_back();
    for (std::size_t j = 0; j < matrix[i].size(); ++j)
      out.push_back(number_at(matrix[i][j], fmt::format("{}[{}]", at, j)));
  }
  // Without the CPU list the matrix's indices stand for the CPUs.
  if (row.c2c_cpus.empty())
    for (std::size_t i = 0; i < row.c2c_ns.size(); ++i) row.c2c_cpus.push_back(static_cast<int>(i));
  if (row.c2c_cpus.size() != row.c2c_ns.size())
    fail(fmt::format("'{}' has {} rows but '{}' names {} CPUs", m.where("c2c_ns"), row.c2c_ns.size(),
                     m.where("c2c_cpus"), row.c2c_cpus.size()));
}

Counterexample parse_counterexample(const Members& m) {
  Counterexample cx;
  const Members c(m.object("counterexample"), m.where("counterexample"));
  for (const auto& [key, value] : c.json().items())
    if (key != "interleaving") cx.figures.push_back(Figure{key, value_text(value)});
  if (!c.has("interleaving")) return cx;
  const Json& steps = c.get("interleaving");
  if (steps.is_string()) {  // one text rather than a list of lines: split it
    std::istringstream in(steps.get<std::string>());
    for (std::string line; std::getline(in, line);) cx.interleaving.push_back(line);
    return cx;
  }
  if (!steps.is_array()) fail(fmt::format("'{}' must be a list of lines", c.where("interleaving")));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].is_string()) fail(fmt::format("'{}[{}]' must be a string", c.where("interleaving"), i));
    cx.interleaving.push_back(steps[i].get<std::string>());
  }
  return cx;
}

ResultRow parse_row(const Members& m) {
  ResultRow row;
  if (m.has("params"))
    for (const auto& [key, value] : m.object("params").items()) row.params.push_back(Figure{key, value_text(value)});
  row.result = m.text("result");
  row.property = m.opt_text("property");
  row.message = m.opt_text("message");
  row.expected = m.opt_text("expected");
  row.matched = m.opt_flag("matched");
  for (const auto& [key, value] : m.json().items()) {
    switch (shown_as(key)) {
      case Shown::key_figure:
        row.figures.push_back(Figure{key, value_text(value)});
        break;
      case Shown::workload:
        row.metrics.push_back(Figure{key, value_text(value)});
        break;
      case Shown::parsed:
        break;
    }
  }
  if (m.has("histogram")) row.histogram = parse_histogram(m);
  if (m.has("peaks_ns"))
    for (const Json& v : m.array("peaks_ns")) row.peaks_ns.push_back(number_at(v, m.where("peaks_ns")));
  parse_c2c(m, row);
  if (m.has("sources"))
    for (const auto& [level, count] : m.object("sources").items())
      row.sources.emplace_back(level, unsigned_at(count, m.where("sources") + "." + level));
  if (m.has("counterexample")) row.counterexample = parse_counterexample(m);
  row.trace = m.opt_text("trace");
  row.chrome_trace = m.opt_text("chrome_trace");
  row.schedule = m.opt_text("schedule");
  row.replay_command = m.opt_text("replay_command");
  return row;
}

ScenarioResult parse_scenario(const Json& object, const std::string& path) {
  if (!object.is_object())
    fail(fmt::format("'{}' must be a scenario's result object", path.empty() ? "the file" : path));
  const Members m(object, path);
  if (m.has("probe"))
    fail("this is a file probe's result (lockstep native probe fileio); the viewer shows scenario results");
  if (!m.has("scenario") || !m.has("result"))
    fail(fmt::format("not a lockstep result: {} has no '{}' (docs/results.md)", path.empty() ? "the object" : path,
                     m.has("scenario") ? "result" : "scenario"));
  ScenarioResult s;
  s.scenario = m.text("scenario");
  s.name = m.opt_text("name");
  s.command = m.opt_text("command");
  s.platform = m.opt_text("platform");
  s.swept = m.opt_flag("swept").value_or(false);
  s.result = m.text("result");
  s.matched = m.opt_flag("matched");
  if (!s.swept) {
    s.rows.push_back(parse_row(m));
    return s;
  }
  const Json& rows = m.array("rows");
  if (rows.empty()) fail(fmt::format("'{}' is empty: a sweep has at least one row", m.where("rows")));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", m.where("rows"), i);
    if (!rows[i].is_object()) fail(fmt::format("'{}' must be an object", at));
    s.rows.push_back(parse_row(Members(rows[i], at)));
  }
  return s;
}

std::size_t line_of_byte(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

}  // namespace

ResultError::ResultError(std::size_t line, const std::string& what)
    : std::runtime_error(line ? fmt::format("line {}: {}", line, what) : what), line_(line) {}

std::string ResultRow::verdict() const { return property.empty() ? result : result + ": " + property; }

std::string ResultRow::params_text() const {
  std::string s;
  for (const Figure& p : params) s += (s.empty() ? "" : ", ") + p.name + "=" + p.value;
  return s;
}

const Figure* ResultRow::figure(std::string_view name) const {
  for (const Figure& f : figures)
    if (f.name == name) return &f;
  for (const Figure& f : metrics)
    if (f.name == name) return &f;
  return nullptr;
}

ResultFile parse_result(std::string_view text) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based; past the end means the text stopped before the value was complete.
    const bool cut = e.byte >= text.size();
    const std::size_t line = line_of_byte(text, e.byte ? e.byte - 1 : 0);
    throw ResultError(line, cut ? "the file ends in the middle of the JSON (it is truncated)"
                                : "not valid JSON (a lockstep result is one JSON object)");
  } catch (const Json::out_of_range& e) {
    // A number too large for a double (`1e400`): valid JSON, but not a result lockstep wrote.
    // nlohmann::json throws it as out_of_range, not as a parse_error, and gives no place.
    throw ResultError(0, fmt::format("a number in the file is out of range ({})", e.what()));
  }
  ResultFile file;
  if (json.is_array()) {
    if (json.empty()) fail("the result lists no scenario");
    for (std::size_t i = 0; i < json.size(); ++i)
      file.scenarios.push_back(parse_scenario(json[i], fmt::format("[{}]", i)));
  } else {
    file.scenarios.push_back(parse_scenario(json, ""));
  }
  return file;
}

}  // namespace lockstep::view
