// The file probe's pure parts: the policy classification (docs/sources.md sections 2 and 3),
// the record tags the experiments recognise their writes by, and the result JSON's fields.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "driver/fileio_probe.hpp"
#include "native/fileio/policy_classification.hpp"
#include "native/fileio/records.hpp"

using namespace lockstep::native::fileio;

namespace {

bool has(const std::vector<std::string_view>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string_view> ruled_out(const Classification& c) {
  std::vector<std::string_view> names;
  for (const RuledOut& r : c.inconsistent) names.push_back(r.policy);
  return names;
}

// Every modeled policy lands in exactly one of the two lists.
void check_partition(const Classification& c) {
  const std::vector<std::string_view> out = ruled_out(c);
  CHECK(c.consistent.size() + out.size() == kOffsetPolicies.size() + kDataPolicies.size());
  for (const auto& list : {std::vector<std::string_view>(kOffsetPolicies.begin(), kOffsetPolicies.end()),
                           std::vector<std::string_view>(kDataPolicies.begin(), kDataPolicies.end())})
    for (const std::string_view p : list) CHECK(has(c.consistent, p) != has(out, p));
}

}  // namespace

TEST_CASE("fileio classification: observing nothing rules out nothing", "[fileio][probe]") {
  const Classification c = classify(Observations{});
  check_partition(c);
  CHECK_FALSE(c.observed_any);
  CHECK(c.inconsistent.empty());
  CHECK(c.note.find("not prove") != std::string_view::npos);
}

// One anomaly at a time: the policies its docs/sources.md rows forbid it in, and no others.
struct OneAnomaly {
  const char* name;
  std::uint64_t Observations::*count;
  std::vector<std::string_view> ruled_out;
};

TEST_CASE("fileio classification: each anomaly rules out exactly the policies that forbid it", "[fileio][probe]") {
  const std::vector<OneAnomaly> cases{
      // pread involves no offset, so no offset policy is touched; lockless reads and page
      // locks both let a read see part of a multi-page write.
      {"torn reads", &Observations::torn_reads_across_pages, {"exclusive", "shared-read", "range-locks"}},
      // A page lock taken by both sides keeps a read inside one page whole.
      {"torn reads within one page",
       &Observations::torn_reads_within_page,
       {"exclusive", "shared-read", "page-locks", "range-locks"}},
      {"interleaved writes",
       &Observations::interleaved_writes,
       {"exclusive", "shared-read", "lockless-reads", "range-locks"}},
      // The vnode rwlock's shared read lock lets two reads take the same offset.
      {"duplicate reads", &Observations::duplicate_reads, {"inode-lock", "f-pos-lock", "foffset-lock"}},
      {"skipped reads", &Observations::skipped_reads, {"inode-lock", "f-pos-lock", "foffset-lock"}},
      // Writes take the vnode rwlock exclusively: only "none" loses one.
      {"lost writes", &Observations::lost_writes, {"inode-lock", "vnode-rwlock", "f-pos-lock", "foffset-lock"}},
  };
  for (const OneAnomaly& a : cases) {
    INFO(a.name);
    Observations o;
    o.*a.count = 2;
    const Classification c = classify(o);
    check_partition(c);
    CHECK(c.observed_any);
    CHECK(ruled_out(c) == a.ruled_out);
    for (const RuledOut& r : c.inconsistent) CHECK(r.because == a.name);
  }
}

TEST_CASE("fileio classification: O_APPEND losses fit no modeled data policy, and the note says so",
          "[fileio][probe]") {
  Observations o;
  o.append_anomalies = 1;
  const Classification c = classify(o);
  check_partition(c);
  for (const std::string_view p : kDataPolicies) CHECK_FALSE(has(c.consistent, p));
  for (const std::string_view p : kOffsetPolicies) CHECK(has(c.consistent, p));
  CHECK(c.note.find("no modeled data policy") != std::string_view::npos);
}

TEST_CASE("fileio classification: each policy names the first anomaly that rules it out", "[fileio][probe]") {
  Observations o;
  o.torn_reads_across_pages = 1;
  o.interleaved_writes = 1;
  const Classification c = classify(o);
  for (const RuledOut& r : c.inconsistent)
    CHECK(r.because == (r.policy == "lockless-reads" ? "interleaved writes" : "torn reads"));
}

TEST_CASE("fileio observations: torn reads split at the page size, append anomalies summed", "[fileio][probe]") {
  ProbeResult r;
  r.torn_reads = {{512, 10, 1}, {4096, 10, 2}, {65536, 10, 4}};
  r.interleaved.append_interleaved = 1;
  r.interleaved.append_lost = 2;
  r.appends.lost = 4;
  r.appends.overwritten = 8;
  const Observations o = observations_of(r, 4096);
  CHECK(o.torn_reads_within_page == 3);
  CHECK(o.torn_reads_across_pages == 4);
  CHECK(o.append_anomalies == 15);
}

TEST_CASE("fileio records: a whole record names its tag, a mixed or empty one none", "[fileio][probe]") {
  std::vector<std::byte> two(2 * 64);
  fill_record(std::span(two).first(64), 7);
  fill_record(std::span(two).last(64), 9);
  CHECK(record_tag(std::span(two).first(64)) == 7u);
  CHECK(record_tag(std::span(two).subspan(32, 64)) == std::nullopt);  // half of each
  CHECK(record_tag(std::vector<std::byte>(64)) == std::nullopt);      // a hole reads as zeros
  const RecordTally t = tally_records(two, 64, 10);
  CHECK(t.distinct == 2);
  CHECK(t.bad_slots == 0);
  const RecordTally partial = tally_records(std::span(two).first(100), 64, 10);
  CHECK(partial.distinct == 1);
  CHECK(partial.bad_slots == 1);
  CHECK(all_bytes(pattern(kPatternA, 16), kPatternA));
  CHECK_FALSE(all_bytes(pattern(kPatternA, 16), kPatternB));
}

TEST_CASE("fileio probe JSON: the documented fields, in order", "[fileio][probe]") {
  ProbeResult r;
  r.path = "/tmp";
  r.filesystem = "tmpfs";
  r.torn_reads = {{512, 10, 1}};
  Observations o;
  o.torn_reads_within_page = 1;
  const auto json = lockstep::driver::fileio_probe_json(r, 4096, classify(o));
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"probe", "platform", "path", "filesystem", "page_bytes", "seconds",
                                         "elapsed_s", "trials", "torn_reads", "interleaved_writes", "duplicate_reads",
                                         "lost_writes", "append_losses", "consistent_policies", "inconsistent_policies",
                                         "ruled_out_by", "note"});
  CHECK(json["trials"] == 10);
  CHECK(json["torn_reads"]["sizes"][0]["torn"] == 1);
  CHECK(json["ruled_out_by"]["page-locks"] == "torn reads within one page");
}
