// Small value types that keep the viewer's per-operation records compact (a big trace holds
// millions of them: docs/traces.md, "How large a trace the viewer opens"). Each reads like
// the standard type it stands for (std::string_view, std::optional), so the views use them
// unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace lockstep::view {

// An interned name (intern_name): 4 bytes, a view of a string that lives as long as the
// process. Names are read without a lock (the table's slots never move).
class Name {
 public:
  Name() = default;
  explicit Name(std::string_view s);  // interns s
  std::string_view view() const;
  operator std::string_view() const { return view(); }  // NOLINT: reads as the view it is
  const char* data() const { return view().data(); }
  std::size_t size() const { return view().size(); }
  bool empty() const { return id_ == 0; }
  friend bool operator==(Name a, Name b) { return a.id_ == b.id_; }
  friend bool operator==(Name a, std::string_view b) { return a.view() == b; }

 private:
  std::uint32_t id_ = 0;  // 0: the empty name
};

// An optional value stored in its own bytes with a flag beside it, not padded to the
// value's alignment: 9 bytes for a 64-bit value where std::optional takes 16. Read by value.
template <class T>
class [[gnu::packed]] Maybe {
 public:
  Maybe() = default;
  Maybe(std::nullopt_t) {}                                                            // NOLINT: as std::optional
  Maybe(T v) : value_(v), has_(true) {}                                               // NOLINT: as std::optional
  Maybe(const std::optional<T>& o) : value_(o.value_or(T{})), has_(o.has_value()) {}  // NOLINT
  bool has_value() const { return has_; }
  explicit operator bool() const { return has_; }
  T operator*() const { return value_; }
  T value() const { return has_ ? value_ : throw std::bad_optional_access(); }
  T value_or(T other) const { return has_ ? value_ : other; }
  operator std::optional<T>() const { return has_ ? std::optional<T>(value_) : std::nullopt; }  // NOLINT
  friend bool operator==(const Maybe& a, const Maybe& b) {
    return a.has_ == b.has_ && (!a.has_ || a.value_ == b.value_);
  }
  friend bool operator==(const Maybe& a, const T& b) { return a.has_ && a.value_ == b; }

 private:
  T value_{};
  bool has_ = false;
};

}  // namespace lockstep::view

template <>
struct fmt::formatter<lockstep::view::Name> : fmt::formatter<std::string_view> {
  template <class Context>
  auto format(lockstep::view::Name n, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(n.view(), ctx);
  }
};
