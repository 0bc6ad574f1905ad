// What a job says when one of its ranks dies (docs/distributed.md, "When a rank dies").
// MPI gives a rank no way to learn that a peer died: Open MPI's launcher notices, prints a
// message naming the rank that exited, and stops every other rank with SIGTERM (SIGKILL a
// moment later). So the report comes in three parts: a rank that crashes says so itself,
// naming its rank, pid and host (a SIGKILL leaves that to the launcher's message); rank 0,
// stopped by the launcher, prints how to go on (set_resume_advice); and rank 0 has already
// written every counterexample the moment its search found it.
#pragma once

#include <string>

namespace lockstep::mpi {

// Installs the handlers: on rank 0 of a job of several, SIGTERM prints the resume advice and
// exits 143; on the other ranks, a crash signal prints the rank's name and re-raises.
void install_rank_failure_reports(int rank, int size);

// Rank 0: what to print if the launcher stops it (the command to go on with, where the
// results so far are). Up to 2 KiB; kept for the signal handler, which may not allocate.
void set_resume_advice(const std::string& advice);

}  // namespace lockstep::mpi
