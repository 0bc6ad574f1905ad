// Fuzz target: the schedule-file reader (model/schedule_file.hpp). Any bytes must either
// parse or be refused with a ScheduleParseError; anything else (a crash, another exception,
// undefined behaviour, a leak, a hang, an allocation past the limit) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/schedule_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const lockstep::model::ScheduleFile schedule = lockstep::model::parse_schedule(text, "fuzz.schedule");
    // What parses must print and parse back to the same choices (the format is round-trip).
    const lockstep::model::ScheduleFile again =
        lockstep::model::parse_schedule(lockstep::model::format_schedule(schedule), "fuzz.schedule");
    if (again.choices != schedule.choices) __builtin_trap();
  } catch (const lockstep::model::ScheduleParseError&) {
    // Bad input, refused with a message: fine.
  }
  return 0;
}
