// A parallel search's runs in depth-first order, kept as groups of equal runs in a row: what
// the dfs (model/dpor_parallel.cpp) and bounded (model/bounded_parallel.cpp) searches merge,
// count and cut at a cap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "model/work_units.hpp"

namespace lockstep::model {

// A subtree's runs in order, as groups of equal runs (a search's executions mostly have the
// same length: memory stays small however many millions run). A parent appends a child's
// runs when it merges it, joining the groups that meet. The dfs folds them into a few groups
// as it goes (fold_all): its memory does not grow with the search's length.
class Runs {
 public:
  void push(const RunFigures& r, std::uint64_t count = 1) {
    if (count == 0) return;
    if (!groups_.empty() && groups_.back().run == r) {
      groups_.back().count += count;
    } else {
      groups_.push_back(Group{r, count});
    }
    size_ += count;
  }
  void append(Runs&& other) {
    if (groups_.empty()) {
      *this = std::move(other);
    } else {
      for (const Group& g : other.groups_) push(g.run, g.count);
    }
    other = Runs();
  }
  std::uint64_t size() const { return size_; }
  const RunFigures& back() const {
    if (groups_.empty()) throw std::logic_error("search: the last run of none");
    return groups_.back().run;
  }
  // The first n runs, in order, as f(run, how many in a row).
  template <class F>
  void for_first(std::uint64_t n, const F& f) const {
    for (const Group& g : groups_) {
      if (n == 0) return;
      const std::uint64_t k = std::min(n, g.count);
      f(g.run, k);
      n -= k;
    }
  }

  // Replaces every run but the last by at most three groups with the same count of complete
  // and abandoned runs, the same longest run and the same sum of memory operations: all a
  // search's figures read of runs counted whole. So runs are kept only where they cannot be
  // cut at the cap, or where a cut searches them again (model/dpor_parallel.cpp, pump): a cut
  // inside folded runs would read figures the folding mixed. Does nothing while there are
  // few groups (folding costs a pass over them).
  void fold_all() {
    if (groups_.size() <= kFoldAbove) return;
    const RunFigures last = groups_.back().run;
    std::uint64_t complete = 0, abandoned = 0, longest = 0, memory_ops = 0;
    for_first(size_ - 1, [&](const RunFigures& r, std::uint64_t count) {
      (r.abandoned ? abandoned : complete) += count;
      longest = std::max(longest, r.steps);
      memory_ops += r.memory_ops * count;
    });
    const std::uint64_t size = size_;
    assign_folded(complete, abandoned, longest, memory_ops);
    push(last, 1);
    if (size_ != size) throw std::logic_error("search: folding runs changed their count");
  }
  // Runs with these figures, folded: the longest carries every memory operation, the others
  // have no steps and none.
  void assign_folded(std::uint64_t complete, std::uint64_t abandoned, std::uint64_t longest, std::uint64_t memory_ops) {
    groups_.clear();
    size_ = 0;
    if (complete + abandoned == 0) return;
    const bool first_abandoned = complete == 0;
    push(RunFigures{longest, memory_ops, first_abandoned}, 1);
    push(RunFigures{0, 0, false}, complete - (first_abandoned ? 0 : 1));
    push(RunFigures{0, 0, true}, abandoned - (first_abandoned ? 1 : 0));
  }

 private:
  static constexpr std::size_t kFoldAbove = 16;
  struct Group {
    RunFigures run;
    std::uint64_t count = 0;
  };
  std::vector<Group> groups_;
  std::uint64_t size_ = 0;
};

}  // namespace lockstep::model
