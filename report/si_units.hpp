// Figures as people read them: a value and its unit with three significant digits and an SI
// prefix ("1.00 G ops/s", "12.3 us", "850 ns"). Used by the sweep table (cli/sweep_table.hpp)
// and, compiled into the viewer's model, by its charts. Plain C++, no dependencies.
#pragma once

#include <string>
#include <string_view>

namespace lockstep::report {

struct SiStyle {
  // The micro prefix. The terminal gets ASCII "u" (its encoding is unknown: a C locale, a CI
  // log or a pipe may not be UTF-8, and byte widths then equal column widths); the viewer,
  // which draws with Unicode fonts, passes "\u00b5" (µ).
  std::string_view micro = "u";
  int digits = 3;           // significant digits, 1 to 6
  bool trim_zeros = false;  // "1.5 G" rather than "1.50 G" (axis ticks)
};

// `value` in `unit` (a base unit: "s", "ops/s", or "" for a plain count), scaled to the prefix
// among T G M k m u n that puts it in [1, 1000): "1.00 G ops/s", "-12.3 us", "850 ns", "1.23 k".
// The prefix joins a unit symbol of one or two letters ("us", "kB"), not a word or a ratio
// ("G ops/s", "M trips/s").
// Values past the last prefix keep it ("1230 T", "0.00120 ns"). Zero is "0 unit"; NaN is
// "NaN" (no quantity, no unit); infinities are "inf unit" and "-inf unit".
std::string format_si(double value, std::string_view unit, const SiStyle& style = {});

}  // namespace lockstep::report
