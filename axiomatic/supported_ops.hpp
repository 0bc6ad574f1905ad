// What the SMT strategy can encode (docs/model-checking.md, "The SMT strategy"): load,
// store, the read-modify-writes, fence, set, if, loop, while and assert. Without Z3's
// headers, so that the scenario loader can refuse the rest at its file:line:col.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "core/workloads/program.hpp"

namespace lockstep::axiomatic {

// An op the encoding cannot express (locks, futexes, pause): named by its file:line:col.
class UnsupportedOp : public std::runtime_error {
 public:
  UnsupportedOp(const std::string& where, const std::string& message)
      : std::runtime_error(where + ": " + message), where_(where), message_(message) {}
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  std::string where_;
  std::string message_;
};

// The first op of `prog` the encoding cannot express, if any (locks, futexes, pause).
std::optional<UnsupportedOp> unsupported_op(const program::Program& prog);
std::optional<UnsupportedOp> unsupported_op(const std::vector<program::Op>& ops);

}  // namespace lockstep::axiomatic
