#include "native/probes/chase_cycle.hpp"

#include <random>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace lockstep::native::probes {

void* build_chase_cycle(char* base, std::uint64_t bytes, std::uint64_t seed, const std::function<bool()>& keep_going) {
  if (bytes < kChaseLineBytes || bytes % kChaseLineBytes != 0)
    throw std::invalid_argument(fmt::format("a chase needs whole {}-byte lines, not {} bytes", kChaseLineBytes, bytes));
  const std::uint64_t lines = bytes / kChaseLineBytes;
  if (lines > UINT32_MAX) throw std::invalid_argument(fmt::format("a chase over {} bytes is too large", bytes));
  constexpr std::uint64_t kPollLines = 64 * 1024;
  std::vector<std::uint32_t> order(lines);
  for (std::uint64_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  // Fisher-Yates written out, and the index drawn by a plain modulo: std::shuffle's and
  // uniform_int_distribution's algorithms are the library's choice, and the route should
  // not change with the standard library. The modulo's bias is below 2^-32 for the at most
  // 2^32 lines allowed.
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = lines - 1; i > 0; --i) {
    if (keep_going && i % kPollLines == 0 && !keep_going()) return nullptr;
    std::swap(order[i], order[rng() % (i + 1)]);
  }
  auto line = [base](std::uint32_t index) { return base + static_cast<std::uint64_t>(index) * kChaseLineBytes; };
  for (std::uint64_t k = 0; k < lines; ++k) {
    if (keep_going && k % kPollLines == 0 && k != 0 && !keep_going()) return nullptr;
    char* next = line(order[(k + 1) % lines]);
    *reinterpret_cast<char**>(line(order[k])) = next;
  }
  return line(order[0]);
}

}  // namespace lockstep::native::probes
