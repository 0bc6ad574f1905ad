// Search and filter over a trace's operations (by thread, CPU, address,
// operation). A query is words separated by spaces, all of which must match:
//   thread:N  or  thread:NAME   the operation's thread (number, or a part of its name)
//   cpu:N                       the CPU it ran on
//   addr:0xHEX  or  addr:NAME   its address: exactly that address, or within the label
//                               whose name contains NAME (e.g. addr:bucket)
//   op:KIND                     load, store, rmw, unpark, ... (rmw kinds too: cas, fetch_add)
//   anything else               a part of the operation's one-line description
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gui/model/trace.hpp"

namespace lockstep::view {

class EventFilter {
 public:
  // Throws std::invalid_argument naming the word that is not understood (cpu:x, addr:0xZZ).
  static EventFilter parse(std::string_view query);

  bool empty() const;
  bool matches(const Trace& trace, const Operation& op) const;
  // Steps (indices into Trace::steps) whose operation matches; findings always match an
  // empty filter only.
  std::vector<std::size_t> matching_steps(const Trace& trace) const;
  // The next matching step after `from` (before it when `backwards`), wrapping around.
  std::optional<std::size_t> next_match(const Trace& trace, std::optional<std::size_t> from, bool backwards) const;

 private:
  std::optional<int> thread_;
  std::string thread_name_;
  std::optional<int> cpu_;
  std::optional<std::uint64_t> addr_;
  std::string addr_name_;
  std::string op_;
  std::vector<std::string> words_;
};

}  // namespace lockstep::view
