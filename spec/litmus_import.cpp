// herd x86 litmus tests to scenarios (spec/litmus_import.hpp; format: Alglave and
// Maranget, herdtools7 documentation). The parser works on offsets into the file's text, so
// every refusal names the line and column of the construct.
#include "spec/litmus_import.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/files.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario::litmus {

namespace {

namespace fs = std::filesystem;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A register's family and the names it is written under (a 64-bit scenario register each).
struct RegFamily {
  const char* r64;
  const char* e32;  // the name an Intel-syntax test uses, upper-cased
  std::vector<const char*> aliases;
};

const std::vector<RegFamily>& families() {
  static const std::vector<RegFamily> f = {
      {"rax", "eax", {"rax", "eax", "ax", "al", "ah"}}, {"rbx", "ebx", {"rbx", "ebx", "bx", "bl", "bh"}},
      {"rcx", "ecx", {"rcx", "ecx", "cx", "cl", "ch"}}, {"rdx", "edx", {"rdx", "edx", "dx", "dl", "dh"}},
      {"rsi", "esi", {"rsi", "esi", "si", "sil"}},      {"rdi", "edi", {"rdi", "edi", "di", "dil"}},
      {"rbp", "ebp", {"rbp", "ebp", "bp", "bpl"}},      {"rsp", "esp", {"rsp", "esp", "sp", "spl"}},
      {"r8", "r8d", {"r8", "r8d", "r8w", "r8b"}},       {"r9", "r9d", {"r9", "r9d", "r9w", "r9b"}},
      {"r10", "r10d", {"r10", "r10d", "r10w", "r10b"}}, {"r11", "r11d", {"r11", "r11d", "r11w", "r11b"}},
      {"r12", "r12d", {"r12", "r12d", "r12w", "r12b"}}, {"r13", "r13d", {"r13", "r13d", "r13w", "r13b"}},
      {"r14", "r14d", {"r14", "r14d", "r14w", "r14b"}}, {"r15", "r15d", {"r15", "r15d", "r15w", "r15b"}},
  };
  return f;
}

class Parser {
 public:
  Parser(std::string path, std::string text, const Kinds& kinds)
      : path_(std::move(path)), text_(std::move(text)), kinds_(kinds) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  Imported run();

 private:
  struct Operand {
    enum class Kind { reg, mem, imm } kind;
    std::string name;   // reg: the scenario register; mem: the location
    std::string value;  // imm
    std::size_t at = 0;
  };
  struct Thread {
    std::vector<std::string> ops;  // YAML lines of the program, without indentation
    std::map<std::string, std::string> reg_init;
    std::set<std::string> assigned;  // registers some op assigns
    std::set<std::string> used;      // registers named anywhere (ops, init, condition)
  };

  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), at);
    const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    const std::size_t col = at - line_starts_[line - 1] + 1;
    throw LitmusError(fmt::format("{}:{}:{}: {}", path_, line, col, message));
  }

  std::string_view line_text(std::size_t line) const {  // 0-based, without the newline
    const std::size_t b = line_starts_[line];
    std::size_t e = line + 1 < line_starts_.size() ? line_starts_[line + 1] - 1 : text_.size();
    if (e > b && text_[e - 1] == '\r') --e;
    return std::string_view(text_).substr(b, e - b);
  }

  void skip_space(std::size_t& i, std::size_t end) const {
    while (i < end) {
      if (is_space(text_[i])) {
        ++i;
      } else if (text_.compare(i, 2, "(*") == 0) {  // herd's OCaml-style comments
        const std::size_t close = text_.find("*)", i + 2);
        if (close == std::string::npos || close >= end) fail(i, "unterminated comment '(*'");
        i = close + 2;
      } else {
        break;
      }
    }
  }

  std::string register_name(std::string_view written, std::size_t at) {
    const std::string l = lower(written);
    for (const RegFamily& f : families())
      for (const char* a : f.aliases)
        if (l == a) return intel_ ? upper(f.e32) : std::string(f.r64);
    fail(at, fmt::format("'{}' is not an x86 general-purpose register", written));
  }

  std::string location_name(std::string_view written, std::size_t at) {
    const std::string name(written);
    if (!yaml::is_identifier(name) || name == "true" || name == "false")
      fail(at, fmt::format("location '{}' is not a name the scenario language accepts", written));
    locations_.insert(name);
    return name;
  }

  static std::optional<std::string> integer(std::string_view s) {
    if (s.empty()) return std::nullopt;
    std::size_t i = 0;
    bool negative = false;
    if (s[0] == '-' || s[0] == '+') {
      negative = s[0] == '-';
      i = 1;
    }
    if (i >= s.size()) return std::nullopt;
    unsigned long long v = 0;
    try {
      std::size_t used = 0;
      const std::string digits(s.substr(i));
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
        v = std::stoull(digits.substr(2), &used, 16), used += 2;
      else
        v = std::stoull(digits, &used, 10);
      if (used != digits.size()) return std::nullopt;
      if (!std::isdigit(static_cast<unsigned char>(digits[0]))) return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (negative) {
      if (v > (1ULL << 63)) return std::nullopt;
      return v == 0 ? std::string("0") : "-" + std::to_string(v);
    }
    return std::to_string(v);
  }

  std::size_t thread_index(std::string_view s, std::size_t at) const {
    const auto n = integer(s);
    if (!n || (*n)[0] == '-') fail(at, fmt::format("'{}' is not a thread number", s));
    const std::size_t t = std::stoull(*n);
    if (t >= threads_.size())
      fail(at, fmt::format("thread {} is not in the test (threads P0..P{})", t, threads_.size() - 1));
    return t;
  }

  void parse_header();
  void parse_init(std::size_t open, std::size_t close);
  void parse_table(std::size_t first_line, std::size_t end_line);
  void parse_instruction(std::size_t thread, std::size_t begin, std::size_t end);
  Operand parse_operand(std::size_t begin, std::size_t end);
  void parse_condition(std::size_t begin);
  std::string cond_or(std::size_t& i);
  std::string cond_and(std::size_t& i);
  std::string cond_unary(std::size_t& i);
  std::string cond_atom(std::size_t& i);
  std::string yaml() const;

  std::string path_;
  std::string text_;
  const Kinds& kinds_;
  std::vector<std::size_t> line_starts_;
  bool intel_ = true;
  std::string name_;
  std::string header_;
  std::string cycle_;
  std::vector<Thread> threads_;
  std::set<std::string> locations_;
  std::map<std::string, std::string> loc_init_;
  std::map<std::string, int> loc_size_;  // bytes each location is accessed with (mixed sizes are refused)
  std::string quantifier_;
  std::string condition_;
  std::string condition_text_;
  struct PendingInit {
    std::size_t thread;
    std::string reg;
    std::string value;
    std::size_t at;
  };
  std::vector<PendingInit> pending_init_;
};

void Parser::parse_header() {
  const std::string_view first = line_text(0);
  std::size_t i = 0;
  while (i < first.size() && is_space(first[i])) ++i;
  std::size_t e = i;
  while (e < first.size() && !is_space(first[e])) ++e;
  const std::string arch(first.substr(i, e - i));
  if (arch == "X86") {
    intel_ = true;
  } else if (arch == "X86_64") {
    intel_ = false;
  } else {
    fail(i, arch.empty() ? "expected a header line `X86 NAME` or `X86_64 NAME`"
                         : fmt::format("architecture '{}' is not x86: only X86 (Intel syntax) and X86_64 (AT&T syntax) "
                                       "tests are imported",
                                       arch));
  }
  while (e < first.size() && is_space(first[e])) ++e;
  std::size_t ne = first.size();
  while (ne > e && is_space(first[ne - 1])) --ne;
  name_ = std::string(first.substr(e, ne - e));
  if (name_.empty()) fail(e, "the header line names no test");
  header_ = std::string(first.substr(0, ne));
}

void Parser::parse_init(std::size_t open, std::size_t close) {
  std::size_t i = open + 1;
  while (true) {
    skip_space(i, close);
    if (i >= close) break;
    std::size_t semi = text_.find(';', i);
    if (semi == std::string::npos || semi > close) semi = close;
    std::size_t e = semi;
    while (e > i && is_space(text_[e - 1])) --e;
    const std::string item = text_.substr(i, e - i);
    const std::size_t at = i;
    i = semi + 1;
    if (item.empty()) continue;
    // [type] lhs [= value]
    std::string lhs = item;
    std::string value = "0";
    std::size_t value_at = at;
    if (const std::size_t eq = item.find('='); eq != std::string::npos) {
      lhs = item.substr(0, eq);
      std::size_t vb = eq + 1;
      while (vb < item.size() && is_space(item[vb])) ++vb;
      value_at = at + vb;
      const std::string v = item.substr(vb);
      const auto n = integer(v);
      if (!n)
        fail(value_at,
             fmt::format("initial value '{}' is not an integer (pointers and symbolic values are not supported)", v));
      value = *n;
    }
    while (!lhs.empty() && is_space(lhs.back())) lhs.pop_back();
    // A C type in front: `int x`, `uint64_t 1:rax`, `int64_t x`.
    std::size_t lb = 0;
    if (const std::size_t sp = lhs.find_last_of(" \t"); sp != std::string::npos) {
      const std::string type = lhs.substr(0, sp);
      static const std::set<std::string> types = {"int",      "long",      "int8_t",   "int16_t",      "int32_t",
                                                  "int64_t",  "uint8_t",   "uint16_t", "uint32_t",     "uint64_t",
                                                  "intptr_t", "uintptr_t", "unsigned", "unsigned int", "unsigned long",
                                                  "char",     "short"};
      std::string t = type;
      while (!t.empty() && is_space(t.back())) t.pop_back();
      if (!types.contains(t))
        fail(at, fmt::format("type '{}' is not supported in the init section (integer types only)", t));
      lb = sp + 1;
      while (lb < lhs.size() && is_space(lhs[lb])) ++lb;
    }
    const std::string target = lhs.substr(lb);
    const std::size_t target_at = at + lb;
    if (target.empty()) fail(at, "an init item names no location or register");
    if (const std::size_t colon = target.find(':'); colon != std::string::npos) {
      pending_init_.push_back({0, target, value, target_at});  // resolved once the threads are known
    } else {
      std::string loc = target;
      if (loc.size() > 2 && loc.front() == '[' && loc.back() == ']') loc = loc.substr(1, loc.size() - 2);
      loc_init_[location_name(loc, target_at)] = value;
    }
  }
}

Parser::Operand Parser::parse_operand(std::size_t begin, std::size_t end) {
  std::size_t b = begin;
  std::size_t e = end;
  while (b < e && is_space(text_[b])) ++b;
  while (e > b && is_space(text_[e - 1])) --e;
  const std::string s = text_.substr(b, e - b);
  if (s.empty()) fail(begin, "missing operand");
  Operand op{Operand::Kind::imm, "", "", b};
  if (s[0] == '$') {
    const auto n = integer(s.substr(1));
    if (!n) fail(b, fmt::format("immediate '{}' is not an integer", s));
    op.value = *n;
    return op;
  }
  if (intel_) {
    if (s.front() == '[') {
      if (s.back() != ']') fail(b, fmt::format("memory operand '{}' lacks its ']'", s));
      std::string inner = s.substr(1, s.size() - 2);
      std::size_t ib = 0;
      while (ib < inner.size() && is_space(inner[ib])) ++ib;
      while (!inner.empty() && is_space(inner.back())) inner.pop_back();
      inner = inner.substr(ib);
      if (!yaml::is_identifier(inner))
        fail(b + 1 + ib,
             fmt::format(
                 "memory operand '{}': only a plain location [x] is supported (no address arithmetic or indirection)",
                 s));
      op.kind = Operand::Kind::mem;
      op.name = location_name(inner, b + 1 + ib);
      return op;
    }
    if (const auto n = integer(s)) {
      op.value = *n;
      return op;
    }
    if (yaml::is_identifier(s)) {
      op.kind = Operand::Kind::reg;
      op.name = register_name(s, b);
      return op;
    }
    fail(b, fmt::format("operand '{}' is not supported (registers, $N and [x] are)", s));
  }
  if (s[0] == '%') {
    op.kind = Operand::Kind::reg;
    op.name = register_name(s.substr(1), b);
    return op;
  }
  if (s.front() == '(') {
    if (s.back() != ')') fail(b, fmt::format("memory operand '{}' lacks its ')'", s));
    const std::string inner = s.substr(1, s.size() - 2);
    if (!yaml::is_identifier(inner))
      fail(b + 1,
           fmt::format("memory operand '{}': only a plain location (x) is supported (no register-indirect addressing)",
                       s));
    op.kind = Operand::Kind::mem;
    op.name = location_name(inner, b + 1);
    return op;
  }
  fail(b, fmt::format("operand '{}' is not supported (%reg, $N and (x) are)", s));
}

void Parser::parse_instruction(std::size_t t, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  skip_space(i, end);
  std::size_t e = end;
  while (e > i && is_space(text_[e - 1])) --e;
  if (i >= e) return;  // an empty cell
  Thread& th = threads_[t];
  const std::size_t at = i;
  auto word = [&](std::size_t& p) {
    const std::size_t s = p;
    while (p < e && !is_space(text_[p])) ++p;
    return text_.substr(s, p - s);
  };
  std::string mnemonic = word(i);
  if (mnemonic.ends_with(":")) fail(at, fmt::format("label '{}': labels and branches are not supported", mnemonic));
  bool locked = false;
  std::size_t mnemonic_at = at;
  if (lower(mnemonic) == "lock") {
    locked = true;
    skip_space(i, e);
    mnemonic_at = i;
    mnemonic = word(i);
    if (mnemonic.empty()) fail(at, "LOCK prefix without an instruction");
  }
  static const std::set<std::string> branches = {"jmp", "je",  "jne",  "jz",  "jnz", "jl",  "jg",
                                                 "jle", "jge", "call", "ret", "cmp", "test"};
  if (branches.contains(lower(mnemonic)))
    fail(mnemonic_at, fmt::format("instruction '{}': branches, comparisons and labels are not supported", mnemonic));
  // Operands, split at top-level commas.
  std::vector<Operand> ops;
  skip_space(i, e);
  if (i < e) {
    std::size_t s = i;
    int depth = 0;
    for (std::size_t p = i; p <= e; ++p) {
      if (p < e && (text_[p] == '[' || text_[p] == '(')) ++depth;
      if (p < e && (text_[p] == ']' || text_[p] == ')')) --depth;
      if (p == e || (text_[p] == ',' && depth == 0)) {
        ops.push_back(parse_operand(s, p));
        s = p + 1;
      }
    }
  }
  std::string m = lower(mnemonic);
  int size = 8;
  if (!intel_) {
    // AT&T size suffixes: b, w, l, q (the scenario's variables are 8 bytes; see docs/litmus.md).
    static const std::set<std::string> bases = {"mov", "xchg", "xadd",    "add", "sub",
                                                "inc", "dec",  "cmpxchg", "and", "or"};
    if (m.size() > 1 && bases.contains(m.substr(0, m.size() - 1))) {
      const char suffix = m.back();
      if (suffix == 'b' || suffix == 'w' || suffix == 'l' || suffix == 'q') {
        size = suffix == 'b' ? 1 : suffix == 'w' ? 2 : suffix == 'l' ? 4 : 8;
        m.pop_back();
      }
    }
    std::reverse(ops.begin(), ops.end());  // AT&T is source, destination: make it destination first
  }
  const auto need = [&](std::size_t n) {
    if (ops.size() != n)
      fail(mnemonic_at, fmt::format("{} takes {} operand{}, not {}", mnemonic, n, n == 1 ? "" : "s", ops.size()));
  };
  const auto memory = [&](const Operand& o) {
    if (o.kind != Operand::Kind::mem) return;
    const auto [it, fresh] = loc_size_.emplace(o.name, size);
    if (!fresh && it->second != size)
      fail(mnemonic_at, fmt::format("mixed-size access: {} accesses {} with {} bytes, another instruction with {}",
                                    mnemonic, o.name, size, it->second));
  };
  const auto value_of = [&](const Operand& o) {
    if (o.kind == Operand::Kind::reg) th.used.insert(o.name);
    return o.kind == Operand::Kind::reg ? o.name : o.value;
  };
  const auto assign = [&](const std::string& reg) {
    th.used.insert(reg);
    th.assigned.insert(reg);
  };
  for (const Operand& o : ops) memory(o);

  if (m == "mfence" && !locked) {
    need(0);
    th.ops.push_back("fence                              # MFENCE");
    return;
  }
  if ((m == "lfence" || m == "sfence") && !locked) {
    need(0);
    th.ops.push_back(fmt::format("# {}: no op under x86-TSO (it orders nothing TSO does not already order)", upper(m)));
    return;
  }
  if (m == "mov" && !locked) {
    need(2);
    const Operand& d = ops[0];
    const Operand& s = ops[1];
    if (d.kind == Operand::Kind::mem && s.kind == Operand::Kind::mem)
      fail(mnemonic_at, "memory-to-memory move: x86 has none, and it is not supported");
    if (d.kind == Operand::Kind::imm) fail(d.at, "the destination of a move is an immediate");
    if (d.kind == Operand::Kind::mem) {
      th.ops.push_back(fmt::format("store: {{var: {}, value: {}, order: relaxed}}", d.name, value_of(s)));
    } else if (s.kind == Operand::Kind::mem) {
      assign(d.name);
      th.ops.push_back(fmt::format("load: {{var: {}, into: {}, order: relaxed}}", s.name, d.name));
    } else {
      const std::string v = value_of(s);
      assign(d.name);
      th.ops.push_back(fmt::format("set: {{reg: {}, value: {}}}", d.name, v));
    }
    return;
  }
  if (m == "xchg") {  // locked whether or not it says so
    need(2);
    const Operand* mem = ops[0].kind == Operand::Kind::mem   ? &ops[0]
                         : ops[1].kind == Operand::Kind::mem ? &ops[1]
                                                             : nullptr;
    const Operand* reg = ops[0].kind == Operand::Kind::reg   ? &ops[0]
                         : ops[1].kind == Operand::Kind::reg ? &ops[1]
                                                             : nullptr;
    if (mem == nullptr || reg == nullptr)
      fail(mnemonic_at, fmt::format("{} is supported between a register and a location only", mnemonic));
    th.used.insert(reg->name);
    assign(reg->name);
    th.ops.push_back(
        fmt::format("exchange: {{var: {}, value: {}, into: {}}}   # XCHG, locked", mem->name, reg->name, reg->name));
    return;
  }
  const bool rmw =
      m == "xadd" || m == "add" || m == "sub" || m == "inc" || m == "dec" || m == "cmpxchg" || m == "and" || m == "or";
  if (rmw) {
    if (!locked)
      fail(mnemonic_at,
           fmt::format("{} without LOCK: a non-atomic read-modify-write of memory is not supported", mnemonic));
    const bool one = m == "inc" || m == "dec";
    need(one ? 1 : 2);
    if (ops[0].kind != Operand::Kind::mem)
      fail(ops[0].at, fmt::format("LOCK {}: the destination must be a location", upper(m)));
    const std::string& var = ops[0].name;
    if (one) {
      th.ops.push_back(
          fmt::format("{}: {{var: {}, value: 1}}   # LOCK {}", m == "inc" ? "fetch_add" : "fetch_sub", var, upper(m)));
      return;
    }
    const Operand& s = ops[1];
    if (s.kind == Operand::Kind::mem) fail(s.at, "memory-to-memory read-modify-write is not supported");
    if (m == "xadd") {
      if (s.kind != Operand::Kind::reg) fail(s.at, "LOCK XADD takes a register source");
      assign(s.name);
      th.ops.push_back(fmt::format("fetch_add: {{var: {}, value: {}, into: {}}}   # LOCK XADD", var, s.name, s.name));
      return;
    }
    if (m == "cmpxchg") {
      if (s.kind != Operand::Kind::reg) fail(s.at, "LOCK CMPXCHG takes a register source");
      // x86: if [x] == EAX then [x] := src else EAX := [x]. Either way EAX ends holding the
      // old value of [x] (on success it already equals it): cas with into = EAX.
      const std::string acc = intel_ ? std::string("EAX") : std::string("rax");
      th.used.insert(s.name);
      th.used.insert(acc);
      assign(acc);
      th.ops.push_back(
          fmt::format("cas: {{var: {}, expected: {}, desired: {}, into: {}}}   # LOCK CMPXCHG", var, acc, s.name, acc));
      return;
    }
    static const std::map<std::string, std::string> names = {
        {"add", "fetch_add"}, {"sub", "fetch_sub"}, {"and", "fetch_and"}, {"or", "fetch_or"}};
    th.ops.push_back(fmt::format("{}: {{var: {}, value: {}}}   # LOCK {}", names.at(m), var, value_of(s), upper(m)));
    return;
  }
  if (locked) fail(mnemonic_at, fmt::format("LOCK {} is not supported", mnemonic));
  fail(mnemonic_at, fmt::format("instruction '{}' is not supported (MOV, MFENCE, LFENCE, SFENCE, XCHG and LOCK "
                                "XADD/ADD/SUB/INC/DEC/AND/OR/CMPXCHG are)",
                                mnemonic));
}

void Parser::parse_table(std::size_t first_line, std::size_t end_line) {
  // The first row names the threads: P0 | P1 | ... ;
  std::size_t row = first_line;
  while (row < end_line && line_text(row).find_first_not_of(" \t\r") == std::string_view::npos) ++row;
  if (row >= end_line)
    fail(line_starts_[std::min(first_line, line_starts_.size() - 1)], "expected the thread table `P0 | P1 ;`");
  auto cells_of = [&](std::size_t line) {
    std::vector<std::pair<std::size_t, std::size_t>> cells;  // [begin, end) offsets
    const std::size_t b = line_starts_[line];
    const std::string_view l = line_text(line);
    std::size_t semi = l.rfind(';');
    if (semi == std::string_view::npos) {
      // herd's rows end in ';'; a row without one is refused where its text ends.
      fail(b + l.size(), "a row of the thread table must end with ';'");
    }
    if (l.substr(semi + 1).find_first_not_of(" \t\r") != std::string_view::npos)
      fail(b + semi + 1, "text after the row's ';'");
    std::size_t s = 0;
    for (std::size_t p = 0; p <= semi; ++p)
      if (p == semi || l[p] == '|') {
        cells.emplace_back(b + s, b + p);
        s = p + 1;
      }
    return cells;
  };
  const auto heads = cells_of(row);
  for (std::size_t k = 0; k < heads.size(); ++k) {
    std::size_t b = heads[k].first;
    std::size_t e = heads[k].second;
    while (b < e && is_space(text_[b])) ++b;
    while (e > b && is_space(text_[e - 1])) --e;
    const std::string h = text_.substr(b, e - b);
    if (h != fmt::format("P{}", k)) fail(b, fmt::format("thread column {} is headed '{}', expected P{}", k, h, k));
  }
  threads_.resize(heads.size());
  for (std::size_t line = row + 1; line < end_line; ++line) {
    if (line_text(line).find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto cells = cells_of(line);
    if (cells.size() > heads.size())
      fail(cells[heads.size()].first,
           fmt::format("this row has {} cells, the table {} threads", cells.size(), heads.size()));
    for (std::size_t k = 0; k < cells.size(); ++k) parse_instruction(k, cells[k].first, cells[k].second);
  }
}

std::string Parser::cond_atom(std::size_t& i) {
  const std::size_t at = i;
  std::size_t p = i;
  while (p < text_.size() && (is_ident_char(text_[p]) || text_[p] == ':' || text_[p] == '[' || text_[p] == ']')) ++p;
  const std::string lhs = text_.substr(i, p - i);
  if (lhs.empty())
    fail(at, text_.size() > at ? fmt::format("unexpected '{}' in the final condition", text_[at])
                               : std::string("the final condition ends early"));
  if (lhs == "true" || lhs == "false") {
    i = p;
    return lhs;
  }
  skip_space(p, text_.size());
  bool negated = false;
  if (text_.compare(p, 2, "!=") == 0) {
    negated = true;
    p += 2;
  } else if (p < text_.size() && text_[p] == '=') {
    p += 1;
  } else {
    fail(p, fmt::format("expected '=' after '{}' in the final condition", lhs));
  }
  skip_space(p, text_.size());
  const std::size_t vat = p;
  while (p < text_.size() &&
         (std::isalnum(static_cast<unsigned char>(text_[p])) != 0 || text_[p] == '-' || text_[p] == '_'))
    ++p;
  const std::string v = text_.substr(vat, p - vat);
  const auto n = integer(v);
  if (!n) fail(vat, fmt::format("value '{}' is not an integer (symbolic and pointer values are not supported)", v));
  i = p;
  std::string subject;
  if (const std::size_t colon = lhs.find(':'); colon != std::string::npos) {
    const std::size_t t = thread_index(lhs.substr(0, colon), at);
    const std::string reg = register_name(lhs.substr(colon + 1), at + colon + 1);
    threads_[t].used.insert(reg);
    subject = fmt::format("P{}.{}", t, reg);
  } else {
    std::string loc = lhs;
    if (loc.size() > 2 && loc.front() == '[' && loc.back() == ']') loc = loc.substr(1, loc.size() - 2);
    subject = location_name(loc, at);
  }
  return fmt::format("{} {} {}", subject, negated ? "!=" : "==", *n);
}

std::string Parser::cond_unary(std::size_t& i) {
  skip_space(i, text_.size());
  if (i < text_.size() && text_[i] == '~') {
    ++i;
    return "!(" + cond_unary(i) + ")";
  }
  if (text_.compare(i, 3, "not") == 0 && i + 3 < text_.size() && !is_ident_char(text_[i + 3])) {
    i += 3;
    return "!(" + cond_unary(i) + ")";
  }
  if (i < text_.size() && text_[i] == '(') {
    const std::size_t open = i;
    ++i;
    std::string inner = cond_or(i);
    skip_space(i, text_.size());
    if (i >= text_.size() || text_[i] != ')') fail(open, "this '(' of the final condition is not closed");
    ++i;
    return "(" + inner + ")";
  }
  return cond_atom(i);
}

std::string Parser::cond_and(std::size_t& i) {
  std::string out = cond_unary(i);
  while (true) {
    std::size_t p = i;
    skip_space(p, text_.size());
    if (text_.compare(p, 2, "/\\") != 0) return out;
    i = p + 2;
    out += " && " + cond_unary(i);
  }
}

std::string Parser::cond_or(std::size_t& i) {
  std::string out = cond_and(i);
  while (true) {
    std::size_t p = i;
    skip_space(p, text_.size());
    if (text_.compare(p, 2, "\\/") == 0) {
      i = p + 2;
      out = "(" + out + ") || (" + cond_and(i) + ")";
    } else if (text_.compare(p, 2, "=>") == 0) {
      i = p + 2;
      out = "!(" + out + ") || (" + cond_or(i) + ")";
    } else {
      return out;
    }
  }
}

void Parser::parse_condition(std::size_t begin) {
  std::size_t i = begin;
  skip_space(i, text_.size());
  // herd allows `locations [x; 0:EAX;]` (what to show) before the condition: nothing to check.
  if (text_.compare(i, 9, "locations") == 0) {
    const std::size_t close = text_.find(']', i);
    if (close == std::string::npos) fail(i, "'locations [' is not closed");
    i = close + 1;
    skip_space(i, text_.size());
  }
  if (text_.compare(i, 6, "filter") == 0) fail(i, "a `filter` clause is not supported");
  const std::size_t at = i;
  if (text_.compare(i, 7, "~exists") == 0) {
    quantifier_ = "~exists";
  } else if (text_.compare(i, 6, "exists") == 0) {
    quantifier_ = "exists";
  } else if (text_.compare(i, 6, "forall") == 0) {
    quantifier_ = "forall";
  } else {
    fail(i, i < text_.size() ? "expected the final condition: exists, ~exists or forall"
                             : "the test has no final condition (exists, ~exists or forall)");
  }
  i += quantifier_.size();
  std::size_t cb = i;
  skip_space(cb, text_.size());
  condition_ = cond_or(i);
  std::size_t end = i;
  skip_space(i, text_.size());
  if (i < text_.size()) fail(i, "unexpected text after the final condition");
  condition_text_ = quantifier_ + " " + text_.substr(cb, end - cb);
  for (char& c : condition_text_)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  (void)at;
}

std::string yaml_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Imported Parser::run() {
  if (text_.empty()) fail(0, "empty file: expected a header line `X86 NAME` or `X86_64 NAME`");
  parse_header();
  // Metadata up to the init section's '{'.
  std::size_t open = std::string::npos;
  for (std::size_t line = 1; line < line_starts_.size(); ++line) {
    const std::string_view l = line_text(line);
    const std::size_t nb = l.find_first_not_of(" \t\r");
    if (nb == std::string_view::npos) continue;
    if (l[nb] == '{') {
      open = line_starts_[line] + nb;
      break;
    }
    if (l.substr(nb).starts_with("(*")) {  // a comment: skip to its end
      std::size_t i = line_starts_[line] + nb;
      skip_space(i, text_.size());
      line = static_cast<std::size_t>(std::upper_bound(line_starts_.begin(), line_starts_.end(), i - 1) -
                                      line_starts_.begin()) -
             1;
      continue;
    }
    if (l[nb] == '"') {
      if (cycle_.empty()) cycle_ = std::string(l.substr(nb));
      continue;
    }
    if (l.find('=') != std::string_view::npos) continue;  // Key=Value metadata: ignored
    fail(line_starts_[line] + nb, "expected the init section '{' (or Key=Value metadata, or a quoted cycle line)");
  }
  if (open == std::string::npos) fail(text_.size(), "the test has no init section '{ ... }'");
  const std::size_t close = text_.find('}', open);
  if (close == std::string::npos) fail(open, "the init section '{' is not closed");
  parse_init(open, close);
  // The thread table: from the line after '}' to the condition.
  std::size_t close_line = static_cast<std::size_t>(std::upper_bound(line_starts_.begin(), line_starts_.end(), close) -
                                                    line_starts_.begin()) -
                           1;
  {
    const std::string_view rest = line_text(close_line).substr(close - line_starts_[close_line] + 1);
    if (rest.find_first_not_of(" \t\r") != std::string_view::npos)
      fail(close + 1 + rest.find_first_not_of(" \t\r"), "text after the init section's '}' on its line");
  }
  std::size_t cond_line = close_line + 1;
  for (; cond_line < line_starts_.size(); ++cond_line) {
    const std::string_view l = line_text(cond_line);
    const std::size_t nb = l.find_first_not_of(" \t\r");
    if (nb == std::string_view::npos) continue;
    const std::string_view w = l.substr(nb);
    if (w.starts_with("exists") || w.starts_with("~exists") || w.starts_with("forall") || w.starts_with("locations") ||
        w.starts_with("filter") || w.starts_with("(*"))
      break;
  }
  parse_table(close_line + 1, cond_line);
  for (const PendingInit& p : pending_init_) {
    const std::size_t colon = p.reg.find(':');
    const std::size_t t = thread_index(p.reg.substr(0, colon), p.at);
    const std::string reg = register_name(p.reg.substr(colon + 1), p.at + colon + 1);
    threads_[t].reg_init[reg] = p.value;
    threads_[t].used.insert(reg);
  }
  if (cond_line >= line_starts_.size())
    fail(text_.size(), "the test has no final condition (exists, ~exists or forall)");
  parse_condition(line_starts_[cond_line]);

  Imported out;
  out.test_name = name_;
  out.quantifier = quantifier_;
  if (const auto k = kinds_.find(name_); k != kinds_.end()) out.kind = k->second;
  for (const char c : name_)
    out.file_stem +=
        (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '_' || c == '.') ? c : '_';
  if (out.file_stem.empty() || out.file_stem[0] == '.') out.file_stem = "_" + out.file_stem;
  out.yaml = yaml();
  return out;
}

std::string Parser::yaml() const {
  const auto kind = kinds_.find(name_);
  const std::string verdict = kind == kinds_.end() ? std::string() : kind->second;
  std::string expect;
  std::string note;
  if (quantifier_ == "forall") {
    if (verdict == "Forbid") {
      expect = "{violation: cond}";
      note = "herd verdict (kinds file): Forbid, so some execution violates the forall condition";
    } else {
      expect = "pass";
      note = verdict.empty() ? "no herd verdict given; expectation unchecked (the forall condition is taken to hold)"
                             : fmt::format("herd verdict (kinds file): {}", verdict);
    }
  } else {
    const bool allow = verdict.empty() ? quantifier_ == "exists" : verdict == "Allow";
    if (!verdict.empty() && verdict != "Allow" && verdict != "Forbid")
      throw LitmusError(fmt::format("{}: kinds file gives '{}' for {}: only Allow and Forbid are understood for {}",
                                    path_, verdict, name_, quantifier_));
    expect = allow ? "{reachable: cond}" : "{unreachable: cond}";
    note = verdict.empty() ? "no herd verdict given; expectation unchecked"
                           : fmt::format("herd verdict (kinds file): {}", verdict);
  }
  std::string y;
  y += fmt::format("name: {}\n", yaml_quote(name_));
  y += "description: |\n";
  y += fmt::format("  Imported by `lockstep import litmus` from {}.\n", fs::path(path_).filename().string());
  y += fmt::format("  {}\n", header_);
  if (!cycle_.empty()) y += fmt::format("  {}\n", cycle_);
  y += fmt::format("  {}\n", condition_text_);
  y += fmt::format("  {}.\n", note);
  y += fmt::format("machine: {{preset: flat, cpus: {}}}\n", threads_.size());
  y += "memory_model: tso\n";
  y += "variables:";
  if (locations_.empty()) {
    y += " {}\n";
  } else {
    y += "\n";
    for (const std::string& l : locations_) {
      const auto it = loc_init_.find(l);
      y += fmt::format("  {}: {}\n", l, it == loc_init_.end() ? std::string("0") : it->second);
    }
  }
  y += "threads:\n";
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    const Thread& th = threads_[t];
    y += fmt::format("  - name: P{}\n    program:\n", t);
    std::vector<std::string> prologue;
    for (const std::string& r : th.used) {
      const auto it = th.reg_init.find(r);
      // Registers start at 0; one with another initial value, or one nothing assigns (so the
      // scenario knows it), is set first.
      if (it != th.reg_init.end() && it->second != "0")
        prologue.push_back(fmt::format("set: {{reg: {}, value: {}}}   # initial value", r, it->second));
      else if (!th.assigned.contains(r))
        prologue.push_back(fmt::format("set: {{reg: {}, value: 0}}   # initial value", r));
    }
    bool any = !prologue.empty();
    for (const std::string& op : th.ops) any = any || op[0] != '#';
    if (!any) prologue.push_back("set: {reg: unused, value: 0}   # the thread has no instruction");
    for (const std::string& op : prologue) y += "      - " + op + "\n";
    for (const std::string& op : th.ops) y += (op[0] == '#' ? "      " : "      - ") + op + "\n";
  }
  y += fmt::format("properties:\n  - {{name: cond, {}: {}}}\n", quantifier_ == "forall" ? "forall" : "exists",
                   yaml_quote(condition_));
  y += "strategy: {kind: dfs}\n";
  y += fmt::format("expect: {}\n", expect);
  return y;
}

}  // namespace

Kinds parse_kinds(const std::string& path, const std::string& text) {
  Kinds kinds;
  std::size_t line = 0;
  std::size_t b = 0;
  while (b <= text.size()) {
    std::size_t e = text.find('\n', b);
    if (e == std::string::npos) e = text.size();
    ++line;
    std::string_view l = std::string_view(text).substr(b, e - b);
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && is_space(l[i])) ++i;
      const std::size_t s = i;
      while (i < l.size() && !is_space(l[i])) ++i;
      if (i > s) words.emplace_back(l.substr(s, i - s));
    }
    if (!words.empty() && !words[0].starts_with("#")) {
      if (words.size() < 2) throw LitmusError(fmt::format("{}:{}:1: expected `NAME Allow|Forbid`", path, line));
      kinds[words[0]] = words[1];
    }
    b = e + 1;
  }
  return kinds;
}

Imported import_litmus(const std::string& path, const std::string& text, const Kinds& kinds) {
  return Parser(path, text, kinds).run();
}

std::string write_imported(const Imported& imported, const std::string& dir) {
  const std::string target = (fs::path(dir) / (imported.file_stem + ".yaml")).string();
  const std::string staging = target + ".import-check";
  io::write_file_atomically(staging, imported.yaml);
  try {
    (void)load_scenario_file(staging);
  } catch (const ScenarioError& e) {
    std::error_code ec;
    fs::remove(staging, ec);
    throw std::logic_error(
        fmt::format("the scenario imported from {} does not load: {}", imported.test_name, e.what()));
  }
  fs::rename(staging, target);
  return target;
}

}  // namespace lockstep::scenario::litmus
