// The expression language of scenario files (docs/scenarios.md, "Expressions"): a
// recursive-descent parser with C precedence that emits reverse Polish code for
// program::evaluate. It knows nothing of YAML: names are resolved by the caller, and errors
// carry the offset into the text so the caller can turn it into a file column.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "core/workloads/program.hpp"

namespace lockstep::scenario {

class ExprError : public std::runtime_error {
 public:
  ExprError(std::size_t offset, const std::string& message) : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }  // into the expression text

 private:
  std::size_t offset_;
};

// The leaf node for a name (`r0`, `x`, `t0.r1`), or the message saying why it is unknown.
using ExprResolved = std::variant<program::ExprNode, std::string>;
using ExprResolver = std::function<ExprResolved(std::string_view name)>;

// Parenthesis and unary-operator nesting beyond this is rejected before it can exhaust the
// parser's own stack; kMaxExprDepth bounds the evaluation stack separately.
inline constexpr int kMaxExprNesting = 256;

// Throws ExprError. The result never needs an evaluation stack deeper than kMaxExprDepth.
program::Expr parse_expr(std::string_view text, const ExprResolver& resolve);

}  // namespace lockstep::scenario
