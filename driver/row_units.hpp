// A sweep's rows as work units (docs/distributed.md, "Sweeps"): under MPI, `lockstep run` of
// a sweep hands whole rows to the other ranks. A row is deterministic, so which rank runs it
// changes nothing but host time; the serving rank writes the row's files (schedule, saved
// traces) in a scratch directory and sends them back with the report, and rank 0 writes
// them where it would have written them itself, so the outputs are one process's.
#pragma once

#include <cstddef>
#include <string>

#include "driver/runner.hpp"

namespace lockstep::driver {

using report::RowReport;
using report::ScenarioReport;

// The unit for rows of a file run with `options` (the same bytes for every row: the row
// travels in the envelope).
std::string encode_row_unit(const RunOptions& options);
// Whether `unit` is a row unit (otherwise it is a search's, model/work_units.hpp).
bool is_row_unit(const std::string& unit);
// Runs row `row` of `file` as the unit says; the answer holds the report and its files.
std::string serve_row_unit(const ScenarioFile& file, std::size_t row, const std::string& unit);
// Rank 0's side: the report, with the row's files written under options.out_dir and the
// report's paths pointing there.
RowReport accept_row_answer(const std::string& answer, const RunOptions& options);

class SweepCheckpoint;  // driver/sweep_checkpoint.hpp

// Runs every row of `file`, rank 0 and each remote lane taking the next row not yet taken;
// the reports come back in row order. With `kept`, rows it holds are not run again, and
// each row that finishes is recorded there at once.
ScenarioReport run_rows_on_ranks(const ScenarioFile& file, const RunOptions& options, SweepCheckpoint* kept = nullptr);

}  // namespace lockstep::driver
