#include <cmath>

#include "driver/fileio_probe.hpp"

namespace lockstep::driver {

namespace {

using Json = nlohmann::ordered_json;
namespace nf = native::fileio;

Json torn_reads(const nf::ProbeResult& r) {
  Json sizes = Json::array();
  for (const nf::TornReadSize& s : r.torn_reads)
    sizes.push_back(Json{{"bytes", s.bytes}, {"trials", s.trials}, {"torn", s.torn}});
  return Json{{"trials", r.torn_read_trials()}, {"torn", r.torn_read_count()}, {"sizes", sizes}};
}

Json interleaved_writes(const nf::InterleavedWrites& w) {
  return Json{
      {"bytes", w.bytes},
      {"trials", w.same_range_trials + w.append_trials},
      {"interleaved", w.same_range_interleaved + w.append_interleaved},
      {"same_range", Json{{"trials", w.same_range_trials}, {"interleaved", w.same_range_interleaved}}},
      {"append", Json{{"trials", w.append_trials}, {"interleaved", w.append_interleaved}, {"lost", w.append_lost}}}};
}

Json policies(const nf::Classification& c) {
  Json consistent = Json::array();
  for (const std::string_view p : c.consistent) consistent.push_back(p);
  Json inconsistent = Json::array();
  Json because = Json::object();
  for (const nf::RuledOut& r : c.inconsistent) {
    inconsistent.push_back(r.policy);
    because[std::string(r.policy)] = r.because;
  }
  return Json{{"consistent_policies", consistent}, {"inconsistent_policies", inconsistent}, {"ruled_out_by", because}};
}

}  // namespace

Json fileio_probe_json(const nf::ProbeResult& r, std::size_t page_bytes, const nf::Classification& c) {
  Json out;
  out["probe"] = "fileio";
  out["platform"] = "native";
  out["path"] = r.path;
  out["filesystem"] = r.filesystem;
  out["page_bytes"] = page_bytes;
  out["seconds"] = r.seconds;
  out["elapsed_s"] = std::round(r.elapsed_s * 1e6) / 1e6;  // host time: microseconds are all a reader can use
  out["trials"] = r.trials();
  out["torn_reads"] = torn_reads(r);
  out["interleaved_writes"] = interleaved_writes(r.interleaved);
  const nf::SharedReads& sr = r.shared_reads;
  out["duplicate_reads"] = Json{
      {"record_bytes", sr.record_bytes}, {"trials", sr.trials}, {"duplicates", sr.duplicates}, {"skipped", sr.skipped}};
  const nf::SharedWrites& sw = r.shared_writes;
  out["lost_writes"] = Json{{"record_bytes", sw.record_bytes}, {"trials", sw.trials}, {"lost", sw.lost}};
  const nf::AppendLosses& a = r.appends;
  out["append_losses"] =
      Json{{"record_bytes", a.record_bytes}, {"trials", a.trials}, {"lost", a.lost}, {"overwritten", a.overwritten}};
  out.update(policies(c));
  out["note"] = c.note;
  return out;
}

}  // namespace lockstep::driver
