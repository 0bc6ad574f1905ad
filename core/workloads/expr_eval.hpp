// Evaluation of op-language expressions (reverse Polish). Division by zero is an error of
// the program, reported with the expression's text.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/workloads/program.hpp"

namespace lockstep::program {

inline constexpr std::size_t kMaxExprDepth = 64;

// `leaf(node)` gives the value of reg, var and thread_reg nodes.
template <class Leaf>
std::int64_t evaluate(const Expr& expr, Leaf&& leaf) {
  std::int64_t stack[kMaxExprDepth];
  std::size_t top = 0;
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  auto s = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
  for (const ExprNode& n : expr.code) {
    switch (n.op) {
      case ExprOp::constant:
        stack[top++] = n.value;
        continue;
      case ExprOp::reg:
      case ExprOp::var:
      case ExprOp::thread_reg:
        stack[top++] = leaf(n);
        continue;
      case ExprOp::neg:
        stack[top - 1] = s(0 - u(stack[top - 1]));
        continue;
      case ExprOp::lnot:
        stack[top - 1] = stack[top - 1] == 0 ? 1 : 0;
        continue;
      case ExprOp::bnot:
        stack[top - 1] = ~stack[top - 1];
        continue;
      default:
        break;
    }
    const std::int64_t b = stack[--top];
    const std::int64_t a = stack[top - 1];
    std::int64_t r = 0;
    switch (n.op) {
      case ExprOp::add:
        r = s(u(a) + u(b));
        break;
      case ExprOp::sub:
        r = s(u(a) - u(b));
        break;
      case ExprOp::mul:
        r = s(u(a) * u(b));
        break;
      case ExprOp::div:
      case ExprOp::mod:
        if (b == 0) throw std::domain_error("division by zero in '" + expr.text + "'");
        if (b == -1) {
          r = n.op == ExprOp::div ? s(0 - u(a)) : 0;  // INT64_MIN / -1 wraps, as the other operators do
        } else {
          r = n.op == ExprOp::div ? a / b : a % b;
        }
        break;
      case ExprOp::band:
        r = a & b;
        break;
      case ExprOp::bor:
        r = a | b;
        break;
      case ExprOp::bxor:
        r = a ^ b;
        break;
      case ExprOp::shl:
        r = s(u(a) << (u(b) & 63));
        break;
      case ExprOp::shr:
        r = s(u(a) >> (u(b) & 63));
        break;
      case ExprOp::eq:
        r = a == b;
        break;
      case ExprOp::ne:
        r = a != b;
        break;
      case ExprOp::lt:
        r = a < b;
        break;
      case ExprOp::le:
        r = a <= b;
        break;
      case ExprOp::gt:
        r = a > b;
        break;
      case ExprOp::ge:
        r = a >= b;
        break;
      case ExprOp::land:
        r = (a != 0 && b != 0);
        break;
      case ExprOp::lor:
        r = (a != 0 || b != 0);
        break;
      default:
        throw std::logic_error("bad expression node");
    }
    stack[top - 1] = r;
  }
  if (top != 1) throw std::logic_error("malformed expression '" + expr.text + "'");
  return stack[0];
}

}  // namespace lockstep::program
