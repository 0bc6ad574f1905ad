// `lockstep import litmus` (spec/litmus_import.hpp): herd's x86 litmus format in both
// syntaxes, refusals at file:line:col, and a round trip: the tests in tests/litmus/ (our own,
// written in herd's format) imported and checked under tso and sc against the literature's
// verdicts (Owens, Sarkar and Sewell 2009; herd's x86 catalogue).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "driver/runner.hpp"
#include "io/files.hpp"
#include "spec/litmus_import.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;
namespace litmus = lockstep::scenario::litmus;
namespace fs = std::filesystem;

namespace {

litmus::Imported import_text(const std::string& text) { return litmus::import_litmus("t.litmus", text, {}); }

// The message a text is refused with, or "(imported)".
std::string refusal(const std::string& text) {
  try {
    import_text(text);
  } catch (const litmus::LitmusError& e) {
    return e.what();
  }
  return "(imported)";
}

std::string litmus_dir() { return std::string(LOCKSTEP_SOURCE_DIR) + "/tests/litmus"; }

// The result (`reachable`, `unreachable`, ...) of checking `yaml` under `model`.
std::string check(const std::string& yaml, const std::string& model, const std::string& stem) {
  std::string text = yaml;
  const std::string from = "memory_model: tso\n";
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "memory_model: " + model + "\n");
  const fs::path dir = lockstep::testing::scratch_dir() / "litmus_import";
  fs::create_directories(dir);
  const std::string path = (dir / (stem + "-" + model + ".yaml")).string();
  io::write_file_atomically(path, text);
  driver::RunOptions options;
  options.out_dir = (dir / "out").string();
  const report::ScenarioReport report = driver::run_scenario_file(scenario::load_scenario_file(path), options);
  REQUIRE(report.rows.size() == 1);
  return report.rows.front().result;
}

}  // namespace

TEST_CASE("litmus import: Intel syntax (X86)", "[litmus_import]") {
  const litmus::Imported t = import_text(
      "X86 SB\n\"Fre PodWR Fre PodWR\"\nCycle=Fre PodWR\n{ x=0; y=0; 0:EAX=3; }\n"
      " P0          | P1          ;\n"
      " MOV [x],$1  | MOV [y],EBX ;\n"
      " MOV EAX,[y] | MOV EAX,[x] ;\n"
      " MFENCE      | SFENCE      ;\n"
      "exists (0:EAX=0 /\\ ~(1:EAX=0 \\/ x=1))\n");
  CHECK(t.test_name == "SB");
  CHECK(t.quantifier == "exists");
  CHECK(t.kind.empty());
  const std::string& y = t.yaml;
  CHECK_THAT(y, Catch::Contains("memory_model: tso"));
  CHECK_THAT(y, Catch::Contains("machine: {preset: flat, cpus: 2}"));
  CHECK_THAT(y, Catch::Contains("- set: {reg: EAX, value: 3}"));
  CHECK_THAT(y, Catch::Contains("- set: {reg: EBX, value: 0}"));  // read, never assigned
  CHECK_THAT(y, Catch::Contains("- store: {var: x, value: 1, order: relaxed}"));
  CHECK_THAT(y, Catch::Contains("- store: {var: y, value: EBX, order: relaxed}"));
  CHECK_THAT(y, Catch::Contains("- load: {var: y, into: EAX, order: relaxed}"));
  CHECK_THAT(y, Catch::Contains("- fence"));
  CHECK_THAT(y, Catch::Contains("# SFENCE: no op under x86-TSO"));
  CHECK_THAT(y, Catch::Contains("exists: \"(P0.EAX == 0 && !(((P1.EAX == 0) || (x == 1))))\""));
  CHECK_THAT(y, Catch::Contains("no herd verdict given; expectation unchecked"));
  CHECK_THAT(y, Catch::Contains("expect: {reachable: cond}"));
}

TEST_CASE("litmus import: AT&T syntax (X86_64), typed init, locked instructions", "[litmus_import]") {
  const litmus::Imported t =
      litmus::import_litmus("dir/t.litmus",
                            "X86_64 LOCKS\n{\nuint64_t x; uint64_t y = 2; uint64_t 0:rax; int64_t 1:rbx = -1;\n}\n"
                            " P0                 | P1                      ;\n"
                            " xchgl %eax,(x)     | lock cmpxchgq %rbx,(y)  ;\n"
                            " lock xaddq %rax,(y)| lock incl (x)           ;\n"
                            " lock addl $3,(x)   | lock decq (y)           ;\n"
                            " movq $1,%rcx       | movq %rbx,%rdx          ;\n"
                            "~exists (0:rax=1 /\\ [y]=2)\n",
                            {{"LOCKS", "Forbid"}});
  const std::string& y = t.yaml;
  CHECK(t.quantifier == "~exists");
  CHECK(t.kind == "Forbid");
  CHECK_THAT(y, Catch::Contains("y: 2"));
  CHECK_THAT(y, Catch::Contains("- exchange: {var: x, value: rax, into: rax}"));
  CHECK_THAT(y, Catch::Contains("- fetch_add: {var: y, value: rax, into: rax}"));
  CHECK_THAT(y, Catch::Contains("- fetch_add: {var: x, value: 3}"));
  CHECK_THAT(y, Catch::Contains("- cas: {var: y, expected: rax, desired: rbx, into: rax}"));
  CHECK_THAT(y, Catch::Contains("- set: {reg: rbx, value: -1}"));
  CHECK_THAT(y, Catch::Contains("- fetch_add: {var: x, value: 1}"));
  CHECK_THAT(y, Catch::Contains("- fetch_sub: {var: y, value: 1}"));
  CHECK_THAT(y, Catch::Contains("- set: {reg: rcx, value: 1}"));
  CHECK_THAT(y, Catch::Contains("- set: {reg: rdx, value: rbx}"));
  CHECK_THAT(y, Catch::Contains("exists: \"(P0.rax == 1 && y == 2)\""));
  CHECK_THAT(y, Catch::Contains("expect: {unreachable: cond}"));
  CHECK_THAT(y, Catch::Contains("from t.litmus"));
  // It loads: write_imported validates it with the scenario loader.
  const fs::path dir = lockstep::testing::scratch_dir() / "litmus_import_write";
  const std::string path = litmus::write_imported(t, dir.string());
  CHECK(path == (dir / "LOCKS.yaml").string());
  CHECK(fs::exists(path));
  CHECK_FALSE(fs::exists(path + ".import-check"));
}

TEST_CASE("litmus import: forall, and an empty cell", "[litmus_import]") {
  const litmus::Imported t = import_text("X86 F\n{ }\n P0 | P1 ;\n MOV [x],$1 | ;\nforall (x=1)\n");
  CHECK_THAT(t.yaml, Catch::Contains("forall: \"(x == 1)\""));
  CHECK_THAT(t.yaml, Catch::Contains("expect: pass"));
  CHECK_THAT(t.yaml, Catch::Contains("set: {reg: unused, value: 0}"));  // P1 has no instruction
}

TEST_CASE("litmus import: each refusal names its file, line and column", "[litmus_import]") {
  struct Case {
    std::string text;
    std::string where;
    std::string says;
  };
  const std::string head = "X86 T\n{ x=0; }\n P0 | P1 ;\n";
  const std::vector<Case> cases = {
      {"ARM T\n", "t.litmus:1:1: ", "architecture 'ARM' is not x86"},
      {"X86\n", "t.litmus:1:4: ", "names no test"},
      {"X86 T\nnonsense\n", "t.litmus:2:1: ", "expected the init section"},
      {"X86 T\n{ x=y; }\n", "t.litmus:2:5: ", "is not an integer"},
      {"X86 T\n{ float x=0; }\n", "t.litmus:2:3: ", "type 'float'"},
      {"X86 T\n{ x=0;\n", "t.litmus:2:1: ", "not closed"},
      {"X86 T\n{ }\n P0 | Q1 ;\n", "t.litmus:3:7: ", "headed 'Q1', expected P1"},
      {head + " MOV [x],$1 | NOP ;\nexists (x=1)\n", "t.litmus:4:15: ", "instruction 'NOP' is not supported"},
      {head + " L0: | ;\nexists (x=1)\n", "t.litmus:4:2: ", "labels and branches"},
      {head + " JMP L0 | ;\nexists (x=1)\n", "t.litmus:4:2: ", "branches"},
      {head + " ADD [x],$1 | ;\nexists (x=1)\n", "t.litmus:4:2: ", "without LOCK"},
      {head + " LOCK MOV [x],$1 | ;\nexists (x=1)\n", "t.litmus:4:7: ", "LOCK MOV is not supported"},
      {head + " MOV [x+EAX],$1 | ;\nexists (x=1)\n", "t.litmus:4:7: ", "only a plain location"},
      {head + " MOV EAX,EQX | ;\nexists (x=1)\n", "t.litmus:4:10: ", "not an x86 general-purpose register"},
      {head + " MOV [x],[y] | ;\nexists (x=1)\n", "t.litmus:4:2: ", "memory-to-memory"},
      {head + " MOV [x],$1 | ;\n", "t.litmus:5:1: ", "no final condition"},
      {head + " MOV [x],$1 | ;\nexists (x=1 /\\ 2:EAX=0)\n", "t.litmus:5:16: ", "thread 2 is not in the test"},
      {head + " MOV [x],$1 | ;\nexists (x=1\n", "t.litmus:5:8: ", "is not closed"},
      {head + " MOV [x],$1 | ;\nexists (x=z)\n", "t.litmus:5:11: ", "value 'z' is not an integer"},
      {head + " MOV [x],$1 | ;\nexists (x=1) junk\n", "t.litmus:5:14: ", "unexpected text"},
      {head + " MOV [x],$1 | ;\nfilter (x=1)\nexists (x=1)\n", "t.litmus:5:1: ", "`filter` clause"},
      {head + " MOV [x],$1 | MOV [x],$2 | MOV [x],$3 ;\nexists (x=1)\n", "t.litmus:4:27: ", "3 cells, the table 2"},
      {head + " MOV [x],$1 | MOV [x],$2 \nexists (x=1)\n", "t.litmus:4:26: ", "must end with ';'"},
      {"X86_64 T\n{ }\n P0 | P1 ;\n movb $1,(x) | movq (x),%rax ;\nexists (x=1)\n",
       "t.litmus:4:16: ", "mixed-size access"},
      {"X86_64 T\n{ }\n P0 | P1 ;\n movq $1,8(%rdi) | ;\nexists (x=1)\n", "t.litmus:4:10: ", "not supported"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.text);
    INFO(c.text);
    INFO(message);
    CHECK_THAT(message, Catch::StartsWith(c.where));
    CHECK_THAT(message, Catch::Contains(c.says));
  }
}

TEST_CASE("litmus import: the kinds file", "[litmus_import]") {
  const litmus::Kinds k = litmus::parse_kinds("kinds.txt", "SB   Allow \nMP Forbid\n\n# note\n");
  CHECK(k.size() == 2);
  CHECK(k.at("SB") == "Allow");
  CHECK(k.at("MP") == "Forbid");
  CHECK_THROWS_WITH(litmus::parse_kinds("kinds.txt", "SB Allow\nMP\n"), Catch::StartsWith("kinds.txt:2:1: "));
}

// SB allowed under TSO and forbidden under SC; MP, LB, 2+2W, SB+mfences, IRIW and SB with
// locked instructions forbidden under both; SB+rfi-pos and R+mfence+rfi-po allowed under TSO
// only (a load reads its own thread's buffered store). Every one is forbidden under SC.
TEST_CASE("litmus import: round trip of tests/litmus under tso and sc", "[litmus_import]") {
  const litmus::Kinds kinds = litmus::parse_kinds("kinds.txt", io::read_file(litmus_dir() + "/kinds.txt"));
  const std::map<std::string, std::string> tso = {
      {"SB", "reachable"},
      {"MP", "unreachable"},
      {"LB", "unreachable"},
      {"2+2W", "unreachable"},
      {"SB+mfences", "unreachable"},
      {"SB+rfi-pos", "reachable"},
      {"R+mfence+rfi-po", "reachable"},
      {"IRIW", "unreachable"},
      {"SB+locked", "unreachable"},
  };
  std::size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(litmus_dir())) {
    if (entry.path().extension() != ".litmus") continue;
    const std::string path = entry.path().string();
    INFO(path);
    const litmus::Imported t = litmus::import_litmus(path, io::read_file(path), kinds);
    REQUIRE(tso.contains(t.test_name));
    REQUIRE(!t.kind.empty());
    CHECK((t.kind == "Allow") == (tso.at(t.test_name) == "reachable"));
    CHECK(check(t.yaml, "tso", t.file_stem) == tso.at(t.test_name));
    CHECK(check(t.yaml, "sc", t.file_stem) == "unreachable");
    ++seen;
  }
  CHECK(seen == tso.size());
}
