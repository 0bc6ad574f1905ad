// The progress line a command keeps rewriting on a terminal (stderr) while a row runs for
// more than a second (driver/progress.hpp samples it):
//   racy counter: random 12.3 k/100 k executions, 8.21 k/s, 11 s left
//   mutex3 [row 2/4]: dfs 45.6 k executions (cap 1.00 M), 20.1 k/s, 2.3 s
//   futex hash: timed 12.4 M steps, 1.02 ms virtual, 3.10 M steps/s, 4.0 s
// The time left is given where the amount of work is known (random and pct run exactly
// their executions); an exhaustive search stops when its space is exhausted, which no rate
// predicts, so it shows its cap instead.
#pragma once

#include <string>

#include "driver/progress.hpp"

namespace lockstep::cli {

std::string progress_line(const driver::ProgressSnapshot& s);

// Writes `line` over the previous one on stderr (carriage return, erase to the end of the
// line); `final` ends it with a newline so the row's last figures stay on screen.
void print_progress(const driver::ProgressSnapshot& s, bool final);

}  // namespace lockstep::cli
