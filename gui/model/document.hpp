// What the viewer opens: a trace (JSON lines whose first line is a "format":"lockstep-trace"
// header, docs/traces.md) or a result (one JSON value, docs/results.md). The kind is decided by
// the content, not the file name, so `lockstep-view out/x.json` and `... x.trace.jsonl` both work.
#pragma once

#include <filesystem>
#include <string_view>
#include <variant>

#include "gui/model/result.hpp"
#include "gui/model/trace.hpp"

namespace lockstep::view {

enum class FileKind { trace, result };

// A text whose first non-blank line has a "format" member (a trace header, even a cut one), or
// is a whole JSON object followed by more lines, is a trace; one starting with '{' or '[' otherwise is a result.
// Anything else is read as a trace, whose parser then says what is wrong with its first line.
FileKind file_kind(std::string_view text);

using Document = std::variant<Trace, ResultFile>;

// Reads a file and parses it as its content says. Throws TraceError or ResultError (both
// std::runtime_error) naming the file and, where it can, the line.
Document load_document(const std::filesystem::path& path);
// load_document for a file that must be a result: a trace is a ResultError saying so.
ResultFile load_result(const std::filesystem::path& path);

}  // namespace lockstep::view
