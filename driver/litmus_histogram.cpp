#include "driver/litmus_histogram.hpp"

#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "core/workloads/expr_eval.hpp"

namespace lockstep::driver {

namespace {

// Where thread t's registers start in a state's values.
std::size_t registers_at(const program::Program& prog, std::size_t thread) {
  std::size_t at = prog.variables.size();
  for (std::size_t t = 0; t < thread; ++t) at += prog.threads[t].registers.size();
  return at;
}

}  // namespace

void FinalStates::record(const Values& values, std::string_view violation) {
  scratch_.values.assign(values.begin(), values.end());
  scratch_.violation.assign(violation);
  const auto it = counts_.find(scratch_);
  if (it != counts_.end()) {
    ++it->second;
  } else {
    counts_.emplace(scratch_, 1);
  }
  ++runs_;
}

std::uint64_t FinalStates::count(const program::Program& prog, const program::FinalCondition& c, bool fails) const {
  std::uint64_t n = 0;
  for (const auto& [key, count] : counts_)
    if (key.violation.empty() && holds(prog, c, key.values) != fails) n += count;
  return n;
}

std::uint64_t FinalStates::violations(std::string_view property) const {
  std::uint64_t n = 0;
  for (const auto& [key, count] : counts_)
    if (key.violation == property) n += count;
  return n;
}

std::vector<report::LitmusState> FinalStates::histogram(const program::Program& prog) const {
  std::vector<report::LitmusState> out;
  for (const auto& [key, count] : counts_) {
    bool witness = false;
    for (const program::FinalCondition& c : prog.exists) witness = witness || holds(prog, c, key.values);
    out.push_back({describe_state(prog, key.values), count, key.violation, witness && key.violation.empty()});
  }
  return out;
}

std::string describe_state(const program::Program& prog, const FinalStates::Values& values) {
  std::string out;
  std::size_t at = prog.variables.size();
  for (const program::ThreadProgram& t : prog.threads)
    for (const std::string& reg : t.registers) out += fmt::format("{}.{}={}; ", t.name, reg, values.at(at++));
  for (std::size_t v = 0; v < prog.variables.size(); ++v)
    out += fmt::format("{}={}; ", prog.variables[v].name, values.at(v));
  if (!out.empty()) out.pop_back();  // the last "; " keeps its ';', as litmus7 prints it
  return out;
}

bool holds(const program::Program& prog, const program::FinalCondition& c, const FinalStates::Values& values) {
  const auto leaf = [&](const program::ExprNode& n) -> std::int64_t {
    if (n.op == program::ExprOp::var) return values.at(static_cast<std::size_t>(n.index));
    if (n.op != program::ExprOp::thread_reg)
      throw std::logic_error(fmt::format("a final condition reads a register of no thread ('{}')", c.expr.text));
    return values.at(registers_at(prog, static_cast<std::size_t>(n.thread)) + static_cast<std::size_t>(n.index));
  };
  return program::evaluate(c.expr, leaf) != 0;
}

}  // namespace lockstep::driver
