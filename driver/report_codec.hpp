// A row's report as bytes and back, whole (docs/distributed.md, "Sweeps"): how a rank that
// ran a sweep row sends rank 0 what it found. Unlike the result JSON (cli/result_json.cpp),
// which is for people and tools and leaves out what a row lacks, this keeps every field, so
// rank 0 writes from a decoded report exactly what it writes from one it ran itself.
#pragma once

#include <string>

#include "scenario/report.hpp"

namespace lockstep::driver {

std::string encode_row_report(const scenario::RowReport& report);
// Throws std::runtime_error on bytes that are not an encoded report.
scenario::RowReport decode_row_report(const std::string& bytes);

}  // namespace lockstep::driver
