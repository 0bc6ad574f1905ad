#include "gui/model/event_filter.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::view {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

template <typename T>
std::optional<T> number(std::string_view s, int base) {
  T value{};
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

EventFilter EventFilter::parse(std::string_view query) {
  EventFilter f;
  std::size_t pos = 0;
  while (pos < query.size()) {
    const std::size_t start = query.find_first_not_of(' ', pos);
    if (start == std::string_view::npos) break;
    const std::size_t stop = std::min(query.find(' ', start), query.size());
    const std::string_view word = query.substr(start, stop - start);
    pos = stop;
    const std::size_t colon = word.find(':');
    const std::string key = colon == std::string_view::npos ? std::string() : lower(word.substr(0, colon));
    const std::string_view value = colon == std::string_view::npos ? word : word.substr(colon + 1);
    if (key == "thread" || key == "th") {
      if (const auto n = number<int>(value, 10)) {
        f.thread_ = *n;
      } else if (!value.empty()) {
        f.thread_name_ = lower(value);
      } else {
        throw std::invalid_argument(fmt::format("'{}': thread: needs a number or a name", word));
      }
    } else if (key == "cpu") {
      f.cpu_ = number<int>(value, 10);
      if (!f.cpu_) throw std::invalid_argument(fmt::format("'{}': cpu: needs a number", word));
    } else if (key == "addr" || key == "address") {
      if (value.starts_with("0x")) {
        f.addr_ = number<std::uint64_t>(value.substr(2), 16);
        if (!f.addr_) throw std::invalid_argument(fmt::format("'{}': not a hex address", word));
      } else if (!value.empty()) {
        f.addr_name_ = lower(value);
      } else {
        throw std::invalid_argument(fmt::format("'{}': addr: needs 0xHEX or a label's name", word));
      }
    } else if (key == "op") {
      if (value.empty()) throw std::invalid_argument(fmt::format("'{}': op: needs an operation kind", word));
      f.op_ = lower(value);
    } else {
      f.words_.push_back(lower(word));
    }
  }
  return f;
}

bool EventFilter::empty() const {
  return !thread_ && thread_name_.empty() && !cpu_ && !addr_ && addr_name_.empty() && op_.empty() && words_.empty();
}

bool EventFilter::matches(const Trace& trace, const Operation& op) const {
  if (thread_ && op.thread != *thread_) return false;
  if (!thread_name_.empty() && !contains(trace.thread_name(op.thread), thread_name_)) return false;
  if (cpu_ && op.cpu != *cpu_) return false;
  if (addr_ && op.addr != addr_) return false;
  if (!addr_name_.empty() && (!op.addr || !contains(trace.address_name(*op.addr), addr_name_))) return false;
  if (!op_.empty() && lower(op.op) != op_ && lower(op.rmw) != op_) return false;
  if (!words_.empty()) {
    const std::string text = lower(trace.describe(op));
    for (const std::string& w : words_)
      if (text.find(w) == std::string::npos) return false;
  }
  return true;
}

std::vector<std::size_t> EventFilter::matching_steps(const Trace& trace) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    const Step& s = trace.steps[i];
    if (s.kind == Step::Kind::op ? matches(trace, trace.ops[s.op]) : empty()) out.push_back(i);
  }
  return out;
}

std::optional<std::size_t> EventFilter::next_match(const Trace& trace, std::optional<std::size_t> from,
                                                   bool backwards) const {
  const std::size_t n = trace.steps.size();
  if (n == 0) return std::nullopt;
  const auto hit = [&](std::size_t i) {
    const Step& s = trace.steps[i];
    return s.kind == Step::Kind::op ? matches(trace, trace.ops[s.op]) : empty();
  };
  std::size_t i = from ? *from : (backwards ? 0 : n - 1);  // so the first move lands on 0 (or n-1)
  for (std::size_t k = 0; k < n; ++k) {
    i = backwards ? (i + n - 1) % n : (i + 1) % n;
    if (hit(i)) return i;
  }
  return std::nullopt;
}

}  // namespace lockstep::view
