// The terminal report of a native litmus run (driver/native_litmus.hpp): the runs, the
// histogram of final states as litmus7 prints it, each final condition's count beside the
// model checker's verdict, and the judgement (model bugs loudly, notes quietly).
#pragma once

#include <string>

#include "report/row_report.hpp"

namespace lockstep::cli {

std::string litmus_summary(const std::string& name, const report::RowReport& row);

}  // namespace lockstep::cli
