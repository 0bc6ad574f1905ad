// A parallel search's runs in depth-first order, kept as groups of equal runs in a row: what
// the dfs (model/dpor_parallel.cpp) and bounded (model/bounded_parallel.cpp) searches merge,
// count and cut at a cap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "model/work_units.hpp"

namespace lockstep::model {

// A subtree's runs in order, as groups of equal runs (a search's executions mostly have the
// same length: memory stays small however many millions run), kept as segments so that a
// parent appends a child's runs without copying them up a tree of hundreds of tasks.
class Runs {
 public:
  void push(const RunFigures& r, std::uint64_t count = 1) {
    if (count == 0) return;
    if (!tail_) {
      tail_ = std::make_shared<std::vector<Group>>();
      segments_.push_back(tail_);
    }
    if (!tail_->empty() && tail_->back().run == r) {
      tail_->back().count += count;
    } else {
      tail_->push_back(Group{r, count});
    }
    size_ += count;
  }
  void append(Runs&& other) {
    segments_.insert(segments_.end(), other.segments_.begin(), other.segments_.end());
    size_ += other.size_;
    tail_.reset();  // the next push starts a segment after the appended ones
    other = Runs();
  }
  std::uint64_t size() const { return size_; }
  const RunFigures& back() const {
    for (auto s = segments_.rbegin(); s != segments_.rend(); ++s)
      if (!(*s)->empty()) return (*s)->back().run;
    throw std::logic_error("search: the last run of none");
  }
  // The first n runs, in order, as f(run, how many in a row).
  template <class F>
  void for_first(std::uint64_t n, const F& f) const {
    for (const auto& seg : segments_)
      for (const Group& g : *seg) {
        if (n == 0) return;
        const std::uint64_t k = std::min(n, g.count);
        f(g.run, k);
        n -= k;
      }
  }

 private:
  struct Group {
    RunFigures run;
    std::uint64_t count = 0;
  };
  std::vector<std::shared_ptr<std::vector<Group>>> segments_;
  std::shared_ptr<std::vector<Group>> tail_;
  std::uint64_t size_ = 0;
};

}  // namespace lockstep::model
