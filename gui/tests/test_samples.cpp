// Distributions and histograms of durations (gui/model/samples.hpp).
#include <catch2/catch.hpp>

#include <numeric>

#include "gui/model/samples.hpp"

namespace lockstep::view {
namespace {

std::uint64_t total(const std::vector<HistogramBin>& bins) {
  return std::accumulate(bins.begin(), bins.end(), std::uint64_t{0},
                         [](std::uint64_t n, const HistogramBin& b) { return n + b.count; });
}

TEST_CASE("view: a distribution has nearest-rank percentiles, min, mean, max and total") {
  const Distribution d = distribution_of({5, 1, 3, 2, 4});
  CHECK(d.count == 5);
  CHECK(d.total_ns == 15);
  CHECK(d.min_ns == 1);
  CHECK(d.max_ns == 5);
  CHECK(d.mean_ns == Approx(3.0));
  CHECK(d.p50_ns == 3);  // rank ceil(2.5) = 3
  CHECK(d.p90_ns == 5);  // rank ceil(4.5) = 5
  CHECK(d.p99_ns == 5);
  const Distribution ten = distribution_of({10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
  CHECK(ten.p50_ns == 50);
  CHECK(ten.p90_ns == 90);
  CHECK(ten.p99_ns == 100);
  CHECK(distribution_of({}).count == 0);
}

TEST_CASE("view: histogram bins are 1 ns wide while the span fits, wider and aligned beyond") {
  const auto narrow = bin_samples({3, 3, 7}, 64);
  REQUIRE(narrow.size() == 5);  // 3, 4, 5, 6, 7
  CHECK(narrow.front() == HistogramBin{3, 4, 2});
  CHECK(narrow.back() == HistogramBin{7, 8, 1});
  CHECK(narrow[1].count == 0);

  // 4..100 spans 97 ns: more than 64 bins of 1 ns, so 2 ns bins aligned to even nanoseconds.
  const auto wide = bin_samples({4, 40, 12, 100}, 64);
  REQUIRE(wide.size() == 49);
  CHECK(wide.front() == HistogramBin{4, 6, 1});
  CHECK(wide.back() == HistogramBin{100, 102, 1});
  CHECK(total(wide) == 4);
  for (const HistogramBin& b : wide) CHECK(b.hi_ns - b.lo_ns == 2);

  const auto huge = bin_samples({0, 999999}, 64);
  CHECK(huge.size() <= 65);
  CHECK(huge.front().hi_ns - huge.front().lo_ns == 20000);  // 1e6 / 64 rounded up to 2 x 10^4
  CHECK(total(huge) == 2);
  CHECK(bin_samples({}, 64).empty());
}

}  // namespace
}  // namespace lockstep::view
