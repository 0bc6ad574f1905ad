#include "mpi/rank_failure.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

namespace lockstep::mpi {

namespace {

// Messages prepared before any signal: a handler may only write(2) them.
std::array<char, 2048> advice{};
std::atomic<std::size_t> advice_size{0};
std::array<char, 256> crash_prefix{};
std::size_t crash_prefix_size = 0;

void write_all(const char* text, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void on_stopped_by_launcher(int /*signal*/) {
  write_all(advice.data(), advice_size.load());
  ::_exit(128 + SIGTERM);
}

extern "C" void on_crash(int signal) {
  write_all(crash_prefix.data(), crash_prefix_size);
  const char* name = signal == SIGSEGV  ? "SIGSEGV"
                     : signal == SIGBUS ? "SIGBUS"
                     : signal == SIGFPE ? "SIGFPE"
                     : signal == SIGILL ? "SIGILL"
                                        : "SIGABRT";
  write_all(name, std::strlen(name));
  write_all("\n", 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_rank_failure_reports(int rank, int size) {
  if (size <= 1) return;
  if (rank == 0) {
    set_resume_advice(
        "lockstep: rank 0 was stopped by the MPI launcher: a rank died (the launcher's message names it) or the job "
        "was cancelled.\n");
    std::signal(SIGTERM, on_stopped_by_launcher);
    return;
  }
  std::array<char, 128> host{};
  ::gethostname(host.data(), host.size() - 1);
  const std::string prefix = fmt::format("lockstep: rank {} (pid {} on {}) died serving rank 0's work units: ", rank,
                                         static_cast<long>(::getpid()), host.data());
  crash_prefix_size = std::min(prefix.size(), crash_prefix.size());
  std::memcpy(crash_prefix.data(), prefix.data(), crash_prefix_size);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(s, on_crash);
}

void set_resume_advice(const std::string& text) {
  advice_size.store(0);
  const std::size_t n = std::min(text.size(), advice.size());
  std::memcpy(advice.data(), text.data(), n);
  advice_size.store(n);
}

}  // namespace lockstep::mpi
