#include "driver/smt_outcome_text.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace lockstep::driver {

std::string smt_outcome_text(const program::Program& prog, const axiomatic::Outcome& o) {
  if (!o.failed.empty()) {
    std::vector<std::string> where = o.failed;
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());
    std::string out;
    for (const std::string& w : where) out += fmt::format("{}failed at {}", out.empty() ? "" : " & ", w);
    return out;
  }
  std::string out;
  for (std::size_t v = 0; v < o.variables.size(); ++v)
    out += fmt::format("{}{}={}", v == 0 ? "" : " ", prog.variables[v].name, o.variables[v]);
  for (std::size_t t = 0; t < o.registers.size(); ++t)
    for (std::size_t k = 0; k < o.registers[t].size(); ++k)
      out += fmt::format(" {}.{}={}", prog.threads[t].name, prog.threads[t].registers[k], o.registers[t][k]);
  return out;
}

}  // namespace lockstep::driver
