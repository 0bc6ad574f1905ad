#include "model/causal_order.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace lockstep::model {

// Only simulated memory: an access in a store buffer's space marks the load it answered
// (for its drain to find), and depends on nothing (causal_order.hpp).
bool conflicting(std::span<const sim::StepAccess> a, std::span<const sim::StepAccess> b) {
  for (const sim::StepAccess& x : a)
    for (const sim::StepAccess& y : b)
      if ((x.write || y.write) && x.space == sim::kSharedSpace && y.space == sim::kSharedSpace &&
          x.addr < y.addr + y.size && y.addr < x.addr + x.size)
        return true;
  return false;
}

void follow_drain(std::span<sim::StepAccess> accesses, std::span<const sim::StepAccess> drain) {
  const sim::StepAccess* slot = nullptr;  // the drained store, in the buffer's space
  const sim::StepAccess* memory = nullptr;
  for (const sim::StepAccess& d : drain) (d.space == sim::kSharedSpace ? memory : slot) = &d;
  if (slot == nullptr || memory == nullptr) return;
  for (sim::StepAccess& x : accesses)
    if (!x.write && x.space == slot->space && x.addr == slot->addr)
      x = sim::StepAccess{memory->addr, memory->size, false, sim::kSharedSpace};
}

CausalOrder::Location& CausalOrder::location(const sim::StepAccess& a) {
  for (std::size_t i = 0; i < locations_used_; ++i)
    if (locations_[i].addr == a.addr && locations_[i].size == a.size && locations_[i].space == a.space)
      return locations_[i];
  if (locations_used_ == locations_.size()) locations_.emplace_back();
  Location& l = locations_[locations_used_++];
  l.addr = a.addr;
  l.size = a.size;
  l.space = a.space;
  l.last_write = sim::kNoStep;
  l.reads_since.clear();
  return l;
}

std::uint32_t& CausalOrder::buffer_read(const sim::StepAccess& a) {
  const std::size_t thread = a.space - 1;
  if (thread >= buffer_reads_.size()) buffer_reads_.resize(thread + 1);
  std::vector<std::uint32_t>& reads = buffer_reads_[thread];
  if (a.addr >= reads.size()) reads.resize(a.addr + 1, sim::kNoStep);
  return reads[a.addr];
}

void CausalOrder::analyse(const sim::EventLog& log, std::vector<Race>* races) {
  const std::size_t n = log.steps.size();
  std::uint32_t max_process = 0;
  for (const sim::StepRecord& s : log.steps) max_process = std::max(max_process, process_of(s.choice));
  processes_ = n == 0 ? 0 : max_process + 1;
  process_.resize(n);
  local_.resize(n);
  clocks_.assign(n * processes_, 0);
  count_.assign(processes_, 0);
  last_.assign(processes_, sim::kNoStep);
  locations_used_ = 0;
  for (auto& reads : buffer_reads_) reads.clear();
  std::vector<std::uint32_t>& earlier = earlier_;

  auto join = [this](std::uint32_t* into, std::size_t step) {
    const std::uint32_t* from = &clocks_[step * processes_];
    for (std::size_t q = 0; q < processes_; ++q) into[q] = std::max(into[q], from[q]);
  };

  for (std::size_t j = 0; j < n; ++j) {
    const sim::StepRecord& s = log.steps[j];
    const std::uint32_t p = process_of(s.choice);
    process_[j] = p;
    local_[j] = ++count_[p];
    std::uint32_t* c = &clocks_[j * processes_];
    if (last_[p] != sim::kNoStep) join(c, last_[p]);
    if (s.enabled_by != sim::kNoStep) join(c, s.enabled_by);
    if (s.enabled_by_drain != sim::kNoStep) join(c, s.enabled_by_drain);
    const auto mine = log.accesses_of(s);
    earlier.clear();
    for (const sim::StepAccess& a : mine) {
      if (a.space != sim::kSharedSpace) continue;  // a forwarded load, or its store's drain: independent
      for (std::size_t i = 0; i < locations_used_; ++i) {
        const Location& l = locations_[i];
        if (l.space != a.space || l.addr >= a.addr + a.size || a.addr >= l.addr + l.size) continue;
        // A load of exactly what its own thread's drain wrote last reads that store, as it
        // would have from the buffer before the drain: no dependence on the drain.
        const bool own_store = !a.write && l.last_write != sim::kNoStep && process_[l.last_write] == p + 1 &&
                               (p & 1U) == 0 && l.addr == a.addr && l.size == a.size;
        if (l.last_write != sim::kNoStep && !own_store) earlier.push_back(l.last_write);
        if (a.write) earlier.insert(earlier.end(), l.reads_since.begin(), l.reads_since.end());
      }
    }
    // Latest first: a dependent step already ordered through a later one is no race.
    std::sort(earlier.begin(), earlier.end(), std::greater<>());
    earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
    for (const std::uint32_t k : earlier) {
      const std::uint32_t q = process_[k];
      if (q == p || c[q] >= local_[k]) continue;
      races->push_back(Race{k, static_cast<std::uint32_t>(j)});
      join(c, k);
    }
    c[p] = local_[j];
    last_[p] = static_cast<std::uint32_t>(j);
    // The location this step wrote in memory (index into locations_): a drain logs it
    // before its store's slot in the buffer.
    constexpr std::size_t kNone = ~std::size_t{0};
    std::size_t written = kNone;
    for (const sim::StepAccess& a : mine) {
      if (a.space != sim::kSharedSpace) {
        std::uint32_t& read = buffer_read(a);
        if (!a.write) {
          read = static_cast<std::uint32_t>(j);
          continue;
        }
        // A drain: the latest load its store answered from the buffer now reads it from
        // memory, so the writes that follow in coherence order depend on that load (a
        // from-read edge), as they do on the loads that read the drain itself.
        if (read != sim::kNoStep) {
          if (written == kNone) throw std::logic_error("causal order: a drain that wrote no memory first");
          locations_[written].reads_since.push_back(read);
        }
        read = sim::kNoStep;
        continue;
      }
      Location& l = location(a);
      if (a.write) {
        l.last_write = static_cast<std::uint32_t>(j);
        l.reads_since.clear();
        written = static_cast<std::size_t>(&l - locations_.data());
      } else if (l.reads_since.empty() || l.reads_since.back() != j) {
        l.reads_since.push_back(static_cast<std::uint32_t>(j));
      }
    }
  }
}

}  // namespace lockstep::model
