#include "cli/import_command.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "io/files.hpp"
#include "spec/litmus_import.hpp"

namespace lockstep::cli {

CLI::App* add_import(CLI::App& app, ImportCommand& c) {
  CLI::App* import = app.add_subcommand("import", "Turn tests written in other tools' formats into scenario files");
  import->require_subcommand(1);
  CLI::App* litmus = import->add_subcommand(
      "litmus",
      "herd x86 litmus tests (X86 Intel syntax, X86_64 AT&T syntax) to scenarios under x86-TSO (docs/litmus.md)");
  litmus->add_option("files", c.files, "Litmus files")->required()->check(CLI::ExistingFile);
  litmus->add_option("--out", c.out, "Directory for the scenario files (created if absent)")->required();
  litmus->add_option("--kinds", c.kinds, "herd's kinds file (NAME Allow|Forbid per line): the expected verdicts")
      ->check(CLI::ExistingFile);
  litmus->add_flag("--quiet,-q", c.quiet, "Print nothing but refusals");
  return litmus;
}

int run_import(const ImportCommand& c) {
  namespace litmus = scenario::litmus;
  litmus::Kinds kinds;
  if (!c.kinds.empty()) kinds = litmus::parse_kinds(c.kinds, io::read_file(c.kinds));
  std::filesystem::create_directories(c.out);
  std::size_t imported = 0;
  std::size_t refused = 0;
  std::size_t unchecked = 0;
  std::map<std::string, std::string> stems;  // file stem -> the litmus file it came from
  for (const std::string& file : c.files) {
    try {
      litmus::Imported t = litmus::import_litmus(file, io::read_file(file), kinds);
      // Two tests whose names sanitize alike: the later gets a suffix.
      const std::string stem = t.file_stem;
      for (int n = 2; stems.contains(t.file_stem); ++n) t.file_stem = fmt::format("{}-{}", stem, n);
      stems[t.file_stem] = file;
      const std::string path = litmus::write_imported(t, c.out);
      ++imported;
      if (t.kind.empty()) ++unchecked;
      if (!c.quiet)
        fmt::print("{} -> {}{}\n", file, path, t.kind.empty() ? " (no herd verdict: expectation unchecked)" : "");
    } catch (const litmus::LitmusError& e) {
      ++refused;
      std::fprintf(stderr, "%s\n", e.what());
    }
  }
  if (!c.quiet)
    fmt::print("imported {} of {} litmus files into {} ({} refused; {} without a herd verdict)\n", imported,
               c.files.size(), c.out, refused, unchecked);
  return refused == 0 ? 0 : 2;
}

}  // namespace lockstep::cli
