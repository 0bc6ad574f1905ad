// The progress line (cli/progress_line.hpp) and its meter (driver/progress.hpp): what a
// person reads while a long row runs, with SI prefixes, and a time left only where the
// amount of work is known.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/progress_line.hpp"
#include "driver/progress.hpp"

using lockstep::cli::progress_line;
using lockstep::driver::ProgressMeter;
using lockstep::driver::ProgressSnapshot;

TEST_CASE("a sampling search's progress line estimates the time left", "[progress]") {
  ProgressSnapshot s;
  s.scenario = "racy counter";
  s.strategy = "random";
  s.elapsed_s = 2.0;
  s.executions = 20'000;
  s.planned = 100'000;
  CHECK(progress_line(s) == "racy counter: random 20.0 k/100 k executions, 10.0 k/s, 8.0 s left");
}

TEST_CASE("a dfs with an estimate shows how far along it is and the time left", "[progress]") {
  ProgressSnapshot s;
  s.scenario = "fib";
  s.strategy = "dfs";
  s.elapsed_s = 3.0;
  s.search_s = 2.0;
  s.executions = 1'200'000;
  s.estimate = 5'000'000;
  s.estimate_half_width = 750'000;
  s.cap = 10'000'000;
  CHECK(progress_line(s) == "fib: dfs 1.20 M of ~5.00 M executions (+-15%), ~6.3 s left");
  s.executions = 6'000'000;  // past the estimate: the count alone
  CHECK(progress_line(s) == "fib: dfs 6.00 M executions (cap 10.0 M), 2.00 M/s, 3.0 s");
}

TEST_CASE("an exhaustive search's progress line shows its cap, not a time left", "[progress]") {
  ProgressSnapshot s;
  s.scenario = "mutex3";
  s.row = 1;
  s.rows = 4;
  s.strategy = "dfs";
  s.elapsed_s = 12.5;
  s.executions = 250'000;
  s.cap = 1'000'000;
  CHECK(progress_line(s) == "mutex3 [row 2/4]: dfs 250 k executions (cap 1.00 M), 20.0 k/s, 12 s");
  s.executions = 14;
  s.phase = "traced re-run";
  CHECK(progress_line(s) == "mutex3 [row 2/4]: dfs (traced re-run) 14 executions (cap 1.00 M), 1.12/s, 12 s");
}

TEST_CASE("a timed run's progress line gives steps, virtual time and rate", "[progress]") {
  ProgressSnapshot s;
  s.scenario = "futex hash";
  s.strategy = "timed";
  s.elapsed_s = 4.0;
  s.steps = 12'400'000;
  s.virtual_ns = 1'020'000;
  CHECK(progress_line(s) == "futex hash: timed 12.4 M steps, 1.02 ms virtual, 3.10 M steps/s, 4.0 s");
}

TEST_CASE("the meter says nothing about a row shorter than a second", "[progress]") {
  std::vector<ProgressSnapshot> seen;
  {
    ProgressMeter meter([&](const ProgressSnapshot& s, bool) { seen.push_back(s); }, ProgressSnapshot{});
    meter.executions()->fetch_add(3);
  }
  CHECK(seen.empty());
}

TEST_CASE("the meter reports a long row's counter, then a final line", "[progress]") {
  std::mutex mutex;
  std::vector<std::pair<std::uint64_t, bool>> seen;
  ProgressSnapshot base;
  base.planned = 10;
  {
    ProgressMeter meter(
        [&](const ProgressSnapshot& s, bool final) {
          const std::lock_guard lock(mutex);
          seen.emplace_back(s.executions, final);
        },
        base);
    meter.executions()->fetch_add(7);
    std::this_thread::sleep_for(ProgressMeter::kQuietFor + 2 * ProgressMeter::kProgressPeriod);
    meter.executions()->fetch_add(3);
  }
  REQUIRE(seen.size() >= 2);
  CHECK(seen.front() == std::pair<std::uint64_t, bool>{7, false});
  CHECK(seen.back() == std::pair<std::uint64_t, bool>{10, true});
  for (std::size_t i = 0; i + 1 < seen.size(); ++i) CHECK_FALSE(seen[i].second);
}
