#include "trace/label_event.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "trace/format.hpp"

namespace lockstep::trace {

namespace {

using Json = nlohmann::json;

std::uint64_t unsigned_member(const Json& object, std::string_view key, const char* what) {
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_number_unsigned())
    throw std::invalid_argument(fmt::format("{} needs '{}', an unsigned integer", what, key));
  return it->get<std::uint64_t>();
}

std::string string_member(const Json& object, std::string_view key, const char* what) {
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_string())
    throw std::invalid_argument(fmt::format("{} needs '{}', a string", what, key));
  return it->get<std::string>();
}

}  // namespace

NamedRegion region_of_label(const Json& event) {
  NamedRegion r;
  const std::string addr = string_member(event, field::addr, "a label");
  const std::string_view digits = addr.starts_with("0x") ? std::string_view(addr).substr(2) : std::string_view();
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), r.addr, 16);
  if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size())
    throw std::invalid_argument("a label's 'addr' must be a hex address like \"0x1f0\"");
  r.bytes = unsigned_member(event, field::size, "a label");
  r.name = string_member(event, field::name, "a label");
  if (event.contains(std::string(field::stride))) r.stride = unsigned_member(event, field::stride, "a label");
  if (event.contains(std::string(field::first))) r.first = unsigned_member(event, field::first, "a label");
  if (const auto it = event.find(std::string(field::fields)); it != event.end()) {
    if (!it->is_array()) throw std::invalid_argument("a label's 'fields' must be an array");
    for (const Json& f : *it) {
      if (!f.is_object()) throw std::invalid_argument("each of a label's 'fields' must be an object");
      r.fields.push_back(FieldName{unsigned_member(f, field::off, "a label's field"),
                                   unsigned_member(f, field::size, "a label's field"),
                                   string_member(f, field::name, "a label's field")});
    }
  }
  return r;
}

}  // namespace lockstep::trace
