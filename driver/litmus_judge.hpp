// The judgement of a native litmus run (docs/model-checking.md, "Native litmus runs"): what
// hardware showed, held against what the model checker says under the host's memory model.
// An outcome the checker proves impossible (an exhaustive search, no internal errors) that
// hardware showed anyway is a model bug, and the command exits 1. An outcome the checker
// allows that hardware never showed is only a note: hardware need not show every outcome a
// model allows, and a finite number of runs shows fewer still.
#pragma once

#include "report/litmus_report.hpp"

namespace lockstep::driver {

// Fills report.model_bugs and report.notes from the conditions' counts and verdicts (and the
// host's model, the runs, the stuck threads); reads nothing else, so a test can judge a
// stand-in report.
void judge_litmus(report::LitmusReport& report);

}  // namespace lockstep::driver
