// The native runner's watchdog: a native run whose threads never finish (a
// deadlock, a lost wakeup) must not hang; past the limit it names the stuck threads and
// exits 1. Checked in a child process, since the watchdog ends the process.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "native/runner.hpp"

using namespace lockstep;

TEST_CASE("the native watchdog names the stuck thread and exits 1", "[native]") {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    static std::atomic<bool> never{false};
    native::NativeRunner runner;
    runner.set_watchdog(0.3);
    runner.spawn("finishes", 0, [] {});
    runner.spawn("sleeps_forever", 0, [] {
      while (!never.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    runner.run();
    std::_Exit(0);  // not reached: the watchdog exits 1
  }
  close(pipe_fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(err.find("sleeps_forever") != std::string::npos);
  CHECK(err.find("finishes") == std::string::npos);
  CHECK(waited < 10.0);
}

TEST_CASE("the native watchdog lets a run that finishes in time return", "[native]") {
  native::NativeRunner runner;
  runner.set_watchdog(30);
  std::atomic<int> ran{0};
  runner.spawn("a", 0, [&ran] { ran.fetch_add(1); });
  runner.spawn("b", 0, [&ran] { ran.fetch_add(1); });
  const native::NativeRunResult r = runner.run();
  CHECK(ran.load() == 2);
  CHECK_FALSE(r.violation);
}

// The run's duration is its threads' own: from before the first body starts to the last
// body's end, not to when the watchdog's loop (which sleeps 2 ms at a time) saw them done.
TEST_CASE("a native run's duration ends at its last thread's end", "[native]") {
  using Clock = std::chrono::steady_clock;
  native::NativeRunner runner;
  Clock::time_point first_start = Clock::time_point::max(), last_end{};
  Clock::time_point starts[2], ends[2];
  for (int i = 0; i < 2; ++i)
    runner.spawn(i == 0 ? "a" : "b", i, [&, i] {
      starts[i] = Clock::now();
      while (Clock::now() - starts[i] < std::chrono::microseconds(200)) {
      }
      ends[i] = Clock::now();
    });
  const auto before = Clock::now();
  const native::NativeRunResult r = runner.run();
  for (int i = 0; i < 2; ++i) {
    first_start = std::min(first_start, starts[i]);
    last_end = std::max(last_end, ends[i]);
  }
  const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  CHECK(r.elapsed_s >= seconds(last_end - first_start));
  CHECK(r.elapsed_s <= seconds(last_end - before));
}
