// What the experiments write, and how what they read back is recognised.
//
// Whole-range patterns (torn reads, interleaved writes): one byte value repeated, a
// different one per writer, so a range read back is one write's only if every byte agrees.
//
// Tagged records (shared descriptors, O_APPEND): every 8-byte word of a record holds the
// record's tag, so a record read back whole names itself, and a range holding parts of two
// records, or of one and a hole, names none. Tags start at 1: a hole reads as zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace lockstep::native::fileio {

inline constexpr std::byte kPatternA{0xAA};
inline constexpr std::byte kPatternB{0x55};
inline constexpr std::size_t kTagBytes = sizeof(std::uint64_t);

std::vector<std::byte> pattern(std::byte value, std::size_t bytes);
bool all_bytes(std::span<const std::byte> range, std::byte value);

// record.size() must be a multiple of kTagBytes.
void fill_record(std::span<std::byte> record, std::uint64_t tag);
// The tag every word of the record holds, or nothing when they disagree or it is 0.
std::optional<std::uint64_t> record_tag(std::span<const std::byte> record);

// A file of records read back: how many distinct tags in 1..max_tag it holds, and how many
// record-sized slots hold no valid tag (a partial last slot counts as one).
struct RecordTally {
  std::uint64_t distinct = 0;
  std::uint64_t bad_slots = 0;
};
RecordTally tally_records(std::span<const std::byte> content, std::size_t record_bytes, std::uint64_t max_tag);

}  // namespace lockstep::native::fileio
