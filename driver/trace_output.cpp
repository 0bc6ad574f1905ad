#include "driver/trace_output.hpp"

#include <cstdio>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "trace/chrome_trace.hpp"

namespace lockstep::driver {

std::string row_file(const std::string& path, std::size_t row) {
  const std::filesystem::path p(path);
  std::string name = p.filename().string();
  std::size_t dot = std::string::npos;
  for (const std::string_view ext : {".trace.jsonl", ".chrome.json"})
    if (name.size() > ext.size() && name.ends_with(ext)) dot = name.size() - ext.size();
  if (dot == std::string::npos) {
    const std::size_t last = name.rfind('.');
    dot = last == std::string::npos || last == 0 ? name.size() : last;
  }
  name.insert(dot, fmt::format("-row{}", row + 1));
  return (p.parent_path() / name).string();
}

TraceOutput::TraceOutput(std::string trace_path, std::string chrome_path, std::uint64_t trace_limit_bytes)
    : trace_path_(std::move(trace_path)), chrome_path_(std::move(chrome_path)), limit_(trace_limit_bytes) {
  if (!trace_path_.empty()) file_.emplace(trace_path_);
}

void TraceOutput::attach(sim::TraceRecorder& recorder) {
  recorder.set_sink([this](std::string_view chunk) { take(chunk); });
}

void TraceOutput::take(std::string_view chunk) {
  sha_.update(chunk);
  written_ += chunk.size();
  if (file_ && limit_ > 0 && written_ > limit_) file_.reset();  // never committed: the temporary goes
  if (file_) file_->write(chunk);
  if (chrome_path_.empty() || !kept_whole_) return;
  if (kept_.size() + chunk.size() > chrome_cap()) {
    kept_whole_ = false;
    kept_.clear();
    kept_.shrink_to_fit();
    return;
  }
  kept_.append(chunk);
}

void TraceOutput::attach(trace::Writer& writer) {
  writer.set_sink([this](std::string_view chunk) { take(chunk); });
}

TraceOutput::Written TraceOutput::finish(sim::TraceRecorder& recorder) {
  recorder.flush();
  recorder.set_sink(nullptr);
  return finish_files();
}

TraceOutput::Written TraceOutput::finish(trace::Writer& writer) {
  writer.flush();
  writer.set_sink(nullptr);
  return finish_files();
}

TraceOutput::Written TraceOutput::finish_files() {
  Written out;
  out.sha256 = sha_.hex();
  if (file_) {
    file_->commit();
    file_.reset();
    out.trace_path = trace_path_;
  } else if (!trace_path_.empty()) {  // dropped past the limit
    std::fprintf(stderr,
                 "note: %s not saved: the trace is over %llu MiB (--save-traces-limit; --trace keeps it whole)\n",
                 trace_path_.c_str(), static_cast<unsigned long long>(limit_ >> 20));
  }
  if (!chrome_path_.empty()) {
    if (kept_whole_) {
      io::write_file_atomically(chrome_path_, trace::chrome_trace_json(kept_));
      out.chrome_trace_path = chrome_path_;
    } else {
      std::fprintf(stderr, "note: no Chrome trace for %s: the trace is over %llu MiB\n", chrome_path_.c_str(),
                   static_cast<unsigned long long>(chrome_cap() >> 20));
    }
  }
  return out;
}

}  // namespace lockstep::driver
