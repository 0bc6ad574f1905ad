// Random small thread programs for differential testing, written as scenario files (so a
// program that exposes a mismatch is a scenario anyone can check and replay).
#pragma once

#include <cstdint>
#include <string>

namespace lockstep::difftest {

struct GeneratorShape {
  unsigned min_threads = 2, max_threads = 4;
  unsigned min_ops = 1, max_ops = 6;  // visible operations per thread, before `if` bodies
  unsigned min_vars = 1, max_vars = 3;
};

// The program of `seed` as the body of a scenario file: variables and threads, with no
// name, memory model, properties or strategy (the caller adds those). Deterministic: the
// same seed gives the same text on every host.
std::string generate_program(std::uint64_t seed, const GeneratorShape& shape = {});

}  // namespace lockstep::difftest
