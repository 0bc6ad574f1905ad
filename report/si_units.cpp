#include "report/si_units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace lockstep::report {

namespace {

struct Prefix {
  int exponent;  // of 1000
  std::string_view symbol;
};

// Largest first; "u" stands for whatever micro symbol the style gives.
constexpr std::array<Prefix, 8> kPrefixes = {
    {{4, "T"}, {3, "G"}, {2, "M"}, {1, "k"}, {0, ""}, {-1, "m"}, {-2, "u"}, {-3, "n"}}};

// `x` (positive) rounded to `digits` significant digits.
double round_significant(double x, int digits) {
  const double magnitude = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(x))));
  return std::round(x * magnitude) / magnitude;
}

std::string number_text(double x, int digits, bool trim) {
  // Decimals so that `digits` significant digits show: 3 digits give 850, 12.3, 1.00, 0.00120.
  const int integer_digits = static_cast<int>(std::floor(std::log10(x))) + 1;
  const int decimals = std::max(0, digits - integer_digits);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  std::string text = buffer;
  if (trim && text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

// A prefix joins a unit symbol of one or two letters ("ns", "kB", "GHz" is "G" + "Hz"); a unit
// that is a word or a ratio stays apart from it ("G ops/s", "M trips/s").
bool joins_prefix(std::string_view unit) {
  return !unit.empty() && unit.size() <= 2 &&
         std::all_of(unit.begin(), unit.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

std::string with_unit(std::string number, std::string_view prefix, std::string_view unit) {
  if (prefix.empty() && unit.empty()) return number;
  number += ' ';
  number += prefix;
  if (!prefix.empty() && !unit.empty() && !joins_prefix(unit)) number += ' ';
  number += unit;
  return number;
}

}  // namespace

std::string format_si(double value, std::string_view unit, const SiStyle& style) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return with_unit(value < 0 ? "-inf" : "inf", "", unit);
  if (value == 0) return with_unit("0", "", unit);
  const int digits = std::clamp(style.digits, 1, 6);
  const std::string sign = value < 0 ? "-" : "";
  const double magnitude = std::abs(value);
  // The largest prefix not above the value, or the smallest one; rounding may carry the
  // scaled value to 1000 ("999.7" to 3 digits), which moves it one prefix up.
  std::size_t i = 0;
  while (i + 1 < kPrefixes.size() && magnitude < std::pow(1000.0, kPrefixes[i].exponent)) ++i;
  double scaled = round_significant(magnitude / std::pow(1000.0, kPrefixes[i].exponent), digits);
  if (scaled >= 1000 && i > 0) {
    --i;
    scaled = round_significant(magnitude / std::pow(1000.0, kPrefixes[i].exponent), digits);
  }
  const std::string_view symbol = kPrefixes[i].symbol == "u" ? style.micro : kPrefixes[i].symbol;
  return with_unit(sign + number_text(scaled, digits, style.trim_zeros), symbol, unit);
}

}  // namespace lockstep::report
