#include "spec/expr_parser.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "core/workloads/expr_eval.hpp"

namespace lockstep::scenario {

namespace {

using program::ExprNode;
using program::ExprOp;

enum class Tok : std::uint8_t { end, number, name, op, lparen, rparen };

struct Token {
  Tok kind = Tok::end;
  std::string_view text;
  std::size_t offset = 0;
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }

// Operators, longest first so that "<=" wins over "<".
constexpr std::array<std::string_view, 20> kOperators{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*", "/",
                                                      "%",  "+",  "-",  "<",  ">",  "&",  "^",  "|",  "!", "~"};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token next() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n')) ++pos_;
    const std::size_t start = pos_;
    if (pos_ == text_.size()) return Token{Tok::end, {}, start};
    const char c = text_[pos_];
    if (is_digit(c)) return take(Tok::number, start, [](char ch) { return is_alnum(ch); });
    if (is_alpha(c)) return take(Tok::name, start, [](char ch) { return is_alnum(ch) || ch == '.'; });
    if (c == '(' || c == ')') {
      ++pos_;
      return Token{c == '(' ? Tok::lparen : Tok::rparen, text_.substr(start, 1), start};
    }
    for (std::string_view op : kOperators) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return Token{Tok::op, op, start};
      }
    }
    if (c == '=') throw ExprError(start, "unexpected '=' (comparison is '==')");
    throw ExprError(start, fmt::format("unexpected character '{}'", c));
  }

 private:
  template <class Pred>
  Token take(Tok kind, std::size_t start, Pred pred) {
    while (pos_ < text_.size() && pred(text_[pos_])) ++pos_;
    return Token{kind, text_.substr(start, pos_ - start), start};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

struct BinaryOp {
  std::string_view text;
  ExprOp op;
  int level;  // higher binds tighter, as in C
};

constexpr std::array<BinaryOp, 18> kBinaryOps{{
    {"||", ExprOp::lor, 0},
    {"&&", ExprOp::land, 1},
    {"|", ExprOp::bor, 2},
    {"^", ExprOp::bxor, 3},
    {"&", ExprOp::band, 4},
    {"==", ExprOp::eq, 5},
    {"!=", ExprOp::ne, 5},
    {"<", ExprOp::lt, 6},
    {"<=", ExprOp::le, 6},
    {">", ExprOp::gt, 6},
    {">=", ExprOp::ge, 6},
    {"<<", ExprOp::shl, 7},
    {">>", ExprOp::shr, 7},
    {"+", ExprOp::add, 8},
    {"-", ExprOp::sub, 8},
    {"*", ExprOp::mul, 9},
    {"/", ExprOp::div, 9},
    {"%", ExprOp::mod, 9},
}};
constexpr int kUnaryLevel = 10;

std::optional<ExprOp> binary_at(const Token& t, int level) {
  if (t.kind != Tok::op) return std::nullopt;
  for (const BinaryOp& b : kBinaryOps)
    if (b.level == level && b.text == t.text) return b.op;
  return std::nullopt;
}

std::optional<ExprOp> unary(const Token& t) {
  if (t.kind != Tok::op) return std::nullopt;
  if (t.text == "-") return ExprOp::neg;
  if (t.text == "!") return ExprOp::lnot;
  if (t.text == "~") return ExprOp::bnot;
  return std::nullopt;
}

std::int64_t parse_literal(const Token& t) {
  std::string_view digits = t.text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec == std::errc::result_out_of_range)
    throw ExprError(t.offset, fmt::format("integer '{}' does not fit in 64 bits", t.text));
  if (ec != std::errc() || end != digits.data() + digits.size())
    throw ExprError(t.offset, fmt::format("bad number '{}'", t.text));
  // Literals up to 2^64-1 are accepted and wrap, so 0xffffffffffffffff is -1 like a word.
  return static_cast<std::int64_t>(value);
}

class Parser {
 public:
  Parser(std::string_view text, const ExprResolver& resolve) : text_(text), lexer_(text), resolve_(resolve) {
    advance();
  }

  program::Expr parse() {
    if (tok_.kind == Tok::end) throw ExprError(0, "empty expression");
    binary(0);
    if (tok_.kind != Tok::end)
      throw ExprError(tok_.offset, fmt::format("unexpected '{}' after the expression", tok_.text));
    program::Expr expr;
    expr.code = std::move(code_);
    expr.text = std::string(text_);
    return expr;
  }

 private:
  void advance() { tok_ = lexer_.next(); }

  void binary(int level) {
    if (level == kUnaryLevel) {
      prefix();
      return;
    }
    binary(level + 1);
    while (const std::optional<ExprOp> op = binary_at(tok_, level)) {
      advance();
      binary(level + 1);
      emit(ExprNode{*op, 0, -1, -1}, -1, 0);
    }
  }

  void prefix() {
    if (const std::optional<ExprOp> op = unary(tok_)) {
      advance();
      nested([this] { prefix(); });
      emit(ExprNode{*op, 0, -1, -1}, 0, 0);
      return;
    }
    primary();
  }

  void primary() {
    const Token t = tok_;
    switch (t.kind) {
      case Tok::number:
        emit(ExprNode{ExprOp::constant, parse_literal(t), -1, -1}, 1, t.offset);
        break;
      case Tok::name:
        emit(leaf(t), 1, t.offset);
        break;
      case Tok::lparen:
        parenthesized();
        return;
      case Tok::end:
        throw ExprError(t.offset, "expression ends where an operand is expected");
      default:
        throw ExprError(t.offset, fmt::format("expected an operand, got '{}'", t.text));
    }
    advance();
  }

  void parenthesized() {
    const std::size_t open = tok_.offset;
    advance();
    nested([this] { binary(0); });
    if (tok_.kind != Tok::rparen)
      throw ExprError(tok_.offset, fmt::format("expected ')' to match the '(' at character {}", open + 1));
    advance();
  }

  // Parentheses and unary operators recurse; bounding them keeps hostile input from
  // exhausting the parser's own stack.
  template <class F>
  void nested(F parse) {
    if (++nesting_ > kMaxExprNesting)
      throw ExprError(tok_.offset, fmt::format("expression nested more than {} deep", kMaxExprNesting));
    parse();
    --nesting_;
  }

  ExprNode leaf(const Token& t) {
    if (t.text == "true" || t.text == "false") return ExprNode{ExprOp::constant, t.text == "true" ? 1 : 0, -1, -1};
    ExprResolved r = resolve_(t.text);
    if (auto* message = std::get_if<std::string>(&r)) throw ExprError(t.offset, *message);
    return std::get<ExprNode>(r);
  }

  // `push` is the node's effect on the evaluation stack: +1 leaf, 0 unary, -1 binary.
  void emit(const ExprNode& node, int push, std::size_t offset) {
    depth_ += push;
    if (depth_ > static_cast<int>(program::kMaxExprDepth)) {
      throw ExprError(offset, fmt::format("expression needs more than {} operands pending at once (the evaluator's "
                                          "stack); split it with a register",
                                          program::kMaxExprDepth));
    }
    code_.push_back(node);
  }

  std::string_view text_;
  Lexer lexer_;
  const ExprResolver& resolve_;
  Token tok_;
  std::vector<ExprNode> code_;
  int depth_ = 0;
  int nesting_ = 0;
};

}  // namespace

program::Expr parse_expr(std::string_view text, const ExprResolver& resolve) { return Parser(text, resolve).parse(); }

}  // namespace lockstep::scenario
