#include "trace/address_names.hpp"

#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace lockstep::trace {

namespace {

std::string offset_suffix(std::uint64_t offset) { return offset == 0 ? std::string() : fmt::format("+{}", offset); }

}  // namespace

void AddressNames::add(NamedRegion region) {
  if (region.bytes == 0) region.bytes = 1;  // a zero-sized label still names its first byte
  if (region.addr + region.bytes < region.addr)
    throw std::invalid_argument(
        fmt::format("label '{}' at {:#x} wraps around the address space", region.name, region.addr));
  const std::uint64_t element = region.stride > 0 ? region.stride : region.bytes;
  for (const FieldName& f : region.fields)
    if (f.bytes == 0 || f.offset + f.bytes > element || f.offset + f.bytes < f.offset)
      throw std::invalid_argument(
          fmt::format("label '{}': field '{}' ({} bytes at offset {}) is not inside its {}-byte {}", region.name,
                      f.name, f.bytes, f.offset, element, region.stride > 0 ? "element" : "object"));
  const std::uint64_t start = region.addr;
  regions_.insert_or_assign(start, std::move(region));
}

const NamedRegion* AddressNames::region_of(std::uint64_t addr) const {
  // Walk down from the last region starting at or below the address: the first that
  // contains it starts last, so it is the innermost.
  for (auto it = regions_.upper_bound(addr); it != regions_.begin();) {
    --it;
    const NamedRegion& r = it->second;
    if (addr - r.addr < r.bytes) return &r;
  }
  return nullptr;
}

std::string AddressNames::name_of(std::uint64_t addr) const {
  const NamedRegion* r = region_of(addr);
  if (r == nullptr) return fmt::format("{:#x}", addr);
  std::uint64_t offset = addr - r->addr;
  std::string name = r->name;
  if (r->stride > 0) {
    name += fmt::format("[{}]", r->first + offset / r->stride);
    offset %= r->stride;
  }
  for (const FieldName& f : r->fields)
    if (offset >= f.offset && offset - f.offset < f.bytes)
      return fmt::format("{}.{}{}", name, f.name, offset_suffix(offset - f.offset));
  return name + offset_suffix(offset);
}

}  // namespace lockstep::trace
