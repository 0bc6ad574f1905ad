#include "model/causal_order.hpp"

#include <algorithm>

namespace lockstep::model {

bool conflicting(std::span<const sim::StepAccess> a, std::span<const sim::StepAccess> b) {
  for (const sim::StepAccess& x : a)
    for (const sim::StepAccess& y : b)
      if ((x.write || y.write) && x.addr < y.addr + y.size && y.addr < x.addr + x.size) return true;
  return false;
}

CausalOrder::CausalOrder(const sim::EventLog& log, std::vector<Race>* races) {
  const std::size_t n = log.steps.size();
  std::uint32_t max_process = 0;
  for (const sim::StepRecord& s : log.steps) max_process = std::max(max_process, process_of(s.choice));
  processes_ = n == 0 ? 0 : max_process + 1;
  process_.resize(n);
  local_.resize(n);
  clocks_.assign(n * processes_, 0);
  std::vector<std::uint32_t> count(processes_, 0);
  std::vector<std::uint32_t> last(processes_, sim::kNoStep);

  auto join = [this](std::uint32_t* into, std::size_t step) {
    const std::uint32_t* from = &clocks_[step * processes_];
    for (std::size_t q = 0; q < processes_; ++q) into[q] = std::max(into[q], from[q]);
  };

  for (std::size_t j = 0; j < n; ++j) {
    const sim::StepRecord& s = log.steps[j];
    const std::uint32_t p = process_of(s.choice);
    process_[j] = p;
    local_[j] = ++count[p];
    std::uint32_t* c = &clocks_[j * processes_];
    if (last[p] != sim::kNoStep) join(c, last[p]);
    if (s.enabled_by != sim::kNoStep) join(c, s.enabled_by);
    const auto mine = log.accesses_of(s);
    if (!mine.empty()) {
      // Latest first: a dependent step already ordered through a later one is no race.
      for (std::size_t k = j; k-- > 0;) {
        const std::uint32_t q = process_[k];
        if (q == p || c[q] >= local_[k]) continue;
        if (!conflicting(log.accesses_of(log.steps[k]), mine)) continue;
        races->push_back(Race{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j)});
        join(c, k);
      }
    }
    c[p] = local_[j];
    last[p] = static_cast<std::uint32_t>(j);
  }
}

}  // namespace lockstep::model
