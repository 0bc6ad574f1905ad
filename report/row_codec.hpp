// A row's report as bytes and back, whole (docs/distributed.md, "Sweeps"): how a rank that
// ran a sweep row sends rank 0 what it found. Unlike the result JSON (report/result_json.cpp),
// which is for people and tools and leaves out what a row lacks, this keeps every field, so
// rank 0 writes from a decoded report exactly what it writes from one it ran itself.
#pragma once

#include <string>

#include "report/row_report.hpp"

namespace lockstep::report {

std::string encode_row_report(const RowReport& row);
// Throws std::runtime_error on bytes that are not an encoded report.
RowReport decode_row_report(const std::string& bytes);

}  // namespace lockstep::report
