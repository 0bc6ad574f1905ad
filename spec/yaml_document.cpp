#include "spec/yaml_document.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include "io/files.hpp"
#include "spec/scenario.hpp"

namespace lockstep::scenario::yaml {

namespace {

// A scenario may hold this many YAML nodes, counting each use of an alias anew: aliases
// nest, so eight levels of nine uses of the one before are 43 million nodes in 2.4 KB.
constexpr std::size_t kMaxScenarioNodes = 100'000;

// And nest at most this deep. yaml-cpp stops text nested past 2000 levels, but an alias used
// inside its own anchor's node makes a cycle, as deep as the node count lets it go: 100,000
// frames of this walk overflowed the stack of an ASan build (a fuzz finding).
constexpr std::size_t kMaxScenarioDepth = 256;

// Walks the document as the loaders will (aliases expanded), refusing it at the node where
// it passes kMaxScenarioNodes or kMaxScenarioDepth.
void require_bounded(const Source& src, const YAML::Node& node, std::string_view what, std::size_t& seen,
                     std::size_t depth = 1) {
  if (++seen > kMaxScenarioNodes)
    src.fail(node, fmt::format("the {} expands to more than {} YAML nodes (an alias counts each time it is "
                               "used)",
                               what, kMaxScenarioNodes));
  if (depth > kMaxScenarioDepth)
    src.fail(node, fmt::format("the {} nests deeper than {} YAML levels (an alias used inside its own "
                               "anchor's node nests without end)",
                               what, kMaxScenarioDepth));
  if (node.IsSequence()) {
    for (const YAML::Node& child : node) require_bounded(src, child, what, seen, depth + 1);
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      require_bounded(src, kv.first, what, seen, depth + 1);
      require_bounded(src, kv.second, what, seen, depth + 1);
    }
  }
}

// The offset of the first byte of `text` that is not valid UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF included), or none.
std::optional<std::size_t> first_bad_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n != 0 && i + n <= text.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    const auto c1 = ok && n > 1 ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (ok && n == 2) ok = c >= 0xC2;
    if (ok && n == 3) ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    if (ok && n == 4) ok = c <= 0xF4 && !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    if (!ok) return i;
    i += n;
  }
  return std::nullopt;
}

// Scenario text and file names must be UTF-8 (they reach JSON results and the viewer).
void require_utf8(const std::string& path, const std::string& text) {
  if (const auto bad = first_bad_utf8(path))
    throw ScenarioError(fmt::format("{}: the file name is not valid UTF-8 (byte {} of it)", path, *bad + 1));
  const auto bad = first_bad_utf8(text);
  if (!bad) return;
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n'));
  const std::size_t line_start = text.rfind('\n', *bad == 0 ? 0 : *bad - 1);
  const std::size_t col = line_start == std::string::npos || *bad == 0 ? *bad + 1 : *bad - line_start;
  throw ScenarioError(fmt::format("{}:{}:{}: the file is not valid UTF-8 (byte {:#04x})", path, line, col,
                                  static_cast<unsigned char>(text[*bad])));
}

// Where a stream's documents start, parsed without building nodes. The caller stops it after
// a few: yaml-cpp 0.7 makes an empty document of a stray `,` at the top level without
// consuming it, so the next document is that one again, forever (jbeder/yaml-cpp#1040);
// YAML::LoadAll loops on it, taking memory, and so would a count run to the end.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

YAML::Node parse_document_text(const Source& src, const std::string& text, std::string_view what) {
  // Not YAML::LoadAll (see DocumentStarts): the first document is loaded on its own, and the
  // stream is read only as far as the start of a second, which is refused.
  YAML::Node doc;
  DocumentStarts starts;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
    }
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    src.fail_at(src.where(e.mark), e.msg);
  }
  if (starts.marks.empty() || doc.IsNull())
    src.fail_at(src.file() + ":1:1", fmt::format("the file holds no {} (expected a map)", what));
  if (starts.marks.size() > 1)
    src.fail_at(src.where(starts.marks[1]), fmt::format("a {} file holds one YAML document", what));
  std::size_t seen = 0;
  require_bounded(src, doc, what, seen);
  return doc;
}

}  // namespace

std::string read_document_text(const std::string& path) {
  std::string text;
  try {
    text = io::read_file(path);
  } catch (const std::runtime_error& e) {
    throw ScenarioError(e.what());
  }
  require_utf8(path, text);
  return text;
}

YAML::Node parse_document(const Source& src, const std::string& text, std::string_view what) {
  return parse_document_text(src, text, what);
}

}  // namespace lockstep::scenario::yaml
