#include "native/fileio/policy_classification.hpp"

#include <algorithm>
#include <initializer_list>

namespace lockstep::native::fileio {

namespace {

struct Rule {
  std::uint64_t Observations::*count;
  std::string_view anomaly;
  std::initializer_list<std::string_view> forbidden_by;  // the policies this anomaly rules out
};

// One rule per anomaly the probe can see; each lists the policies whose row in docs/sources.md
// does not allow it. Policies a rule does not name are not constrained by that anomaly.
const Rule kRules[] = {
    // Section 3: exclusive inode lock, shared-read/exclusive-write and range locks allow
    // no anomaly; "writers exclusive, reads lockless" lets "a read see part of a write (even
    // within one page)", and "page locks only" lets "reads see partial writes".
    {&Observations::torn_reads_across_pages, "torn reads", {"exclusive", "shared-read", "range-locks"}},
    // Section 3: "page locks only" takes a page's lock for reads and writes alike, so a
    // read inside one page sees a write to it whole or not at all; only lockless reads tear
    // there.
    {&Observations::torn_reads_within_page,
     "torn reads within one page",
     {"exclusive", "shared-read", "range-locks", "page-locks"}},
    // Section 3: only "page locks only" lets "writes spanning pages interleave"; the
    // lockless-reads policy makes writers exclusive and range locks make overlapping
    // writes exclusive.
    {&Observations::interleaved_writes,
     "interleaved writes",
     {"exclusive", "shared-read", "lockless-reads", "range-locks"}},
    // Section 2: "none" lets "two readers get the same data" and a "lost offset update";
    // the vnode rwlock's shared read lock lets "concurrent reads return the same data and
    // lose an update"; the inode lock, f_pos_lock and the foffset lock allow none.
    {&Observations::duplicate_reads, "duplicate reads", {"inode-lock", "f-pos-lock", "foffset-lock"}},
    // A skipped range is an offset no serial order of the reads produces: the same
    // section-2 rows, since only an unprotected offset can move that way.
    {&Observations::skipped_reads, "skipped reads", {"inode-lock", "f-pos-lock", "foffset-lock"}},
    // Section 2: only "none" allows a "lost offset update" between writers ("overlapping
    // writes"); the vnode rwlock is exclusive for writes.
    {&Observations::lost_writes, "lost writes", {"inode-lock", "vnode-rwlock", "f-pos-lock", "foffset-lock"}},
    // O_APPEND's position is the file size, not a shared offset, so section 2 does not
    // apply. Section 3: every data policy but "page locks only" makes writers exclusive,
    // and the seed's description behind that row excepts appends ("On linux, excepting
    // appends, the inode is not locked for io"): no modeled policy lets appends collide.
    {&Observations::append_anomalies,
     "O_APPEND losses",
     {"exclusive", "shared-read", "lockless-reads", "page-locks", "range-locks"}},
};

constexpr std::string_view kNothingObserved =
    "no anomaly observed: every modeled policy is consistent, and absence in finite trials does not prove that "
    "a policy forbidding these anomalies is in force";
constexpr std::string_view kSomeObserved =
    "inconsistent policies forbid an anomaly that was observed; consistent ones allow every one observed (they "
    "need not require it)";
constexpr std::string_view kNoDataPolicy =
    "inconsistent policies forbid an anomaly that was observed; no modeled data policy allows all of them";

std::string_view first_reason(const Observations& observed, std::string_view policy) {
  for (const Rule& rule : kRules) {
    if (observed.*rule.count == 0) continue;
    if (std::find(rule.forbidden_by.begin(), rule.forbidden_by.end(), policy) != rule.forbidden_by.end())
      return rule.anomaly;
  }
  return {};
}

}  // namespace

Observations observations_of(const ProbeResult& result, std::size_t page_bytes) {
  Observations o;
  for (const TornReadSize& s : result.torn_reads)
    (s.bytes <= page_bytes ? o.torn_reads_within_page : o.torn_reads_across_pages) += s.torn;
  o.interleaved_writes = result.interleaved.same_range_interleaved;
  o.duplicate_reads = result.shared_reads.duplicates;
  o.skipped_reads = result.shared_reads.skipped;
  o.lost_writes = result.shared_writes.lost;
  o.append_anomalies = result.appends.lost + result.appends.overwritten + result.interleaved.append_interleaved +
                       result.interleaved.append_lost;
  return o;
}

Classification classify(const Observations& observed) {
  Classification c;
  for (const Rule& rule : kRules) c.observed_any = c.observed_any || observed.*rule.count != 0;
  bool some_data_policy = false;
  auto sort = [&](std::string_view policy, bool is_data) {
    const std::string_view because = first_reason(observed, policy);
    if (because.empty()) {
      c.consistent.push_back(policy);
      some_data_policy = some_data_policy || is_data;
    } else {
      c.inconsistent.push_back(RuledOut{policy, because});
    }
  };
  for (const std::string_view p : kOffsetPolicies) sort(p, false);
  for (const std::string_view p : kDataPolicies) sort(p, true);
  c.note = !c.observed_any ? kNothingObserved : some_data_policy ? kSomeObserved : kNoDataPolicy;
  return c;
}

}  // namespace lockstep::native::fileio
