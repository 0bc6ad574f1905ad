// Reading one YAML document from a file, bounded: the file's size (io::read_file), valid
// UTF-8, a single document, and at most so many nodes, so deep, aliases expanded. Scenario
// files and machine files (docs/machines.md, "Machine files") are read this way.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "spec/yaml_fields.hpp"

namespace lockstep::scenario::yaml {

// The file's text, checked to be UTF-8 (names and text reach JSON results and the viewer).
// Throws ScenarioError naming the file (and line and column of a bad byte).
std::string read_document_text(const std::string& path);

// The one document `text` holds, a map or anything else the caller then checks; `what` names
// it in messages ("scenario", "machine file"). Throws ScenarioError at file:line:col.
YAML::Node parse_document(const Source& src, const std::string& text, std::string_view what);

}  // namespace lockstep::scenario::yaml
