#include "gui/model/document.hpp"

#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trace/format.hpp"
#include "trace/reader.hpp"

namespace lockstep::view {

namespace {

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

}  // namespace

FileKind file_kind(std::string_view text) {
  std::size_t pos = 0;
  std::string_view first;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!blank(line)) {
      first = line;
      break;
    }
  }
  // A trace header starts with its format (a cut one still does); a result never has a
  // `format` member (it starts with `scenario`, or a file probe's `probe`).
  if (first.find(fmt::format("\"{}\"", trace::field::format)) != std::string_view::npos) return FileKind::trace;
  const bool more_lines = !blank(text.substr(pos));
  if (more_lines && nlohmann::json::accept(first) && nlohmann::json::parse(first).is_object()) return FileKind::trace;
  const std::size_t start = first.find_first_not_of(" \t\r");
  if (start != std::string_view::npos && (first[start] == '{' || first[start] == '[')) return FileKind::result;
  return FileKind::trace;
}

// A trace is parsed from the file as it is read (load_trace), never held whole: the kind is
// decided from the file's first bytes, as many as the longest line a trace may have, and only
// a result (one JSON value) is read whole.
Document load_document(const std::filesystem::path& path) {
  std::string head;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path.string(), 0, "cannot open the file");
    head.resize(trace::ReaderLimits{}.max_line_bytes + 1);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (in.bad()) throw TraceError(path.string(), 0, "cannot read the file");
    head.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (file_kind(head) == FileKind::trace) return load_trace(path);
  const simdjson::padded_string padded = read_file(path);
  try {
    return parse_result(std::string_view(padded.data(), padded.size()));
  } catch (const ResultError& e) {
    throw ResultError(0, fmt::format("{}, {}", path.string(), e.what())).with_line(e.line());
  }
}

ResultFile load_result(const std::filesystem::path& path) {
  Document doc = load_document(path);
  if (auto* result = std::get_if<ResultFile>(&doc)) return std::move(*result);
  throw ResultError(0, fmt::format("{} is a trace, not a result file", path.string()));
}

}  // namespace lockstep::view
