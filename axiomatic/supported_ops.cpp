#include "axiomatic/supported_ops.hpp"

#include <fmt/format.h>

namespace lockstep::axiomatic {

using program::Op;
using program::OpKind;

namespace {

const char* op_name(OpKind k) {
  switch (k) {
    case OpKind::pause:
      return "pause";
    case OpKind::lock:
      return "lock";
    case OpKind::unlock:
      return "unlock";
    case OpKind::futex_wait:
      return "futex_wait";
    case OpKind::futex_wake:
      return "futex_wake";
    case OpKind::futex_requeue:
      return "futex_requeue";
    case OpKind::cond_wait:
      return "cond_wait";
    case OpKind::cond_signal:
      return "cond_signal";
    case OpKind::cond_broadcast:
      return "cond_broadcast";
    default:
      return "op";
  }
}

}  // namespace

std::optional<UnsupportedOp> unsupported_op(const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    switch (op.kind) {
      case OpKind::pause:
      case OpKind::lock:
      case OpKind::unlock:
      case OpKind::futex_wait:
      case OpKind::futex_wake:
      case OpKind::futex_requeue:
      case OpKind::cond_wait:
      case OpKind::cond_signal:
      case OpKind::cond_broadcast:
        return UnsupportedOp(op.where, fmt::format("the smt strategy cannot encode `{}` (it encodes load, store, the "
                                                   "read-modify-writes, fence, set, if, loop, while and assert)",
                                                   op_name(op.kind)));
      default:
        break;
    }
    if (auto u = unsupported_op(op.body)) return u;
    if (auto u = unsupported_op(op.else_body)) return u;
  }
  return std::nullopt;
}

std::optional<UnsupportedOp> unsupported_op(const program::Program& prog) {
  for (const program::ThreadProgram& t : prog.threads) {
    if (t.may_die)
      return UnsupportedOp(t.where, fmt::format("the smt strategy cannot encode a thread that may die (thread '{}', "
                                                "`may_die`); check it with dfs, bounded or pct",
                                                t.name));
    if (auto u = unsupported_op(t.body)) return u;
  }
  return std::nullopt;
}

}  // namespace lockstep::axiomatic
