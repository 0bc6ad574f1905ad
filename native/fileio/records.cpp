#include "native/fileio/records.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace lockstep::native::fileio {

std::vector<std::byte> pattern(std::byte value, std::size_t bytes) { return std::vector<std::byte>(bytes, value); }

bool all_bytes(std::span<const std::byte> range, std::byte value) {
  return std::all_of(range.begin(), range.end(), [value](std::byte b) { return b == value; });
}

void fill_record(std::span<std::byte> record, std::uint64_t tag) {
  if (record.size() % kTagBytes != 0) throw std::invalid_argument("record size is not a multiple of 8 bytes");
  for (std::size_t at = 0; at < record.size(); at += kTagBytes) std::memcpy(record.data() + at, &tag, kTagBytes);
}

std::optional<std::uint64_t> record_tag(std::span<const std::byte> record) {
  if (record.size() < kTagBytes || record.size() % kTagBytes != 0) return std::nullopt;
  std::uint64_t tag = 0;
  std::memcpy(&tag, record.data(), kTagBytes);
  if (tag == 0) return std::nullopt;
  for (std::size_t at = kTagBytes; at < record.size(); at += kTagBytes)
    if (std::memcmp(record.data() + at, &tag, kTagBytes) != 0) return std::nullopt;
  return tag;
}

RecordTally tally_records(std::span<const std::byte> content, std::size_t record_bytes, std::uint64_t max_tag) {
  RecordTally tally;
  std::vector<bool> seen(max_tag + 1, false);
  for (std::size_t at = 0; at < content.size(); at += record_bytes) {
    const std::optional<std::uint64_t> tag =
        record_tag(content.subspan(at, std::min(record_bytes, content.size() - at)));
    if (!tag || *tag > max_tag) {
      ++tally.bad_slots;
    } else if (!seen[*tag]) {
      seen[*tag] = true;
      ++tally.distinct;
    }
  }
  return tally;
}

}  // namespace lockstep::native::fileio
