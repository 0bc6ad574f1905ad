// Importing herd's x86 litmus tests as scenario files (`lockstep import litmus`).
//
// The format is herd's, as the herdtools7 documentation describes it (Jade Alglave and Luc
// Maranget, "herd7" and "litmus7" manuals, herdtools7, diy.inria.fr/doc): a header line
// `X86 NAME` (Intel syntax) or `X86_64 NAME` (AT&T syntax), an optional quoted cycle line and
// `Key=Value` metadata, the init section `{ x=0; 0:EAX=1; uint64_t y; }`, a table of threads
// `P0 | P1 ;` with one instruction per cell, and a final condition (`exists`, `~exists`,
// `forall`) over `N:REG=V`, `x=V` and `[x]=V` atoms with `/\`, `\/`, `~`, `=>`.
//
// Each test becomes a thread-program scenario under `memory_model: tso` (docs/litmus.md says
// which instructions map to which ops, and what is refused). A construct outside that
// subset is refused with a LitmusError whose message starts "FILE:LINE:COL: ".
#pragma once

#include <map>
#include <string>

#include "spec/scenario.hpp"

namespace lockstep::scenario::litmus {

// A litmus file we refuse: the message starts "file:line:col: ".
class LitmusError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

// herd's kinds file: one `NAME  Allow|Forbid|Require|...` per line. Throws LitmusError.
using Kinds = std::map<std::string, std::string>;
Kinds parse_kinds(const std::string& path, const std::string& text);

struct Imported {
  std::string test_name;   // the header's NAME
  std::string file_stem;   // sanitized NAME: the scenario's file name without ".yaml"
  std::string yaml;        // the scenario
  std::string quantifier;  // "exists", "~exists" or "forall"
  std::string kind;        // the herd verdict used ("Allow", "Forbid", ...), empty: none given
};

// Translates one litmus file's text; `path` is used in messages and the description.
// Throws LitmusError.
Imported import_litmus(const std::string& path, const std::string& text, const Kinds& kinds);

// Writes `imported` as DIR/STEM.yaml, after loading the text with the scenario loader (a
// scenario that does not load is a bug of the importer: std::logic_error). The file appears
// whole or not at all. Returns its path.
std::string write_imported(const Imported& imported, const std::string& dir);

}  // namespace lockstep::scenario::litmus
