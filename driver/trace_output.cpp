#include "driver/trace_output.hpp"

#include <cstdio>

#include "trace/chrome_trace.hpp"

namespace lockstep::driver {


TraceOutput::TraceOutput(std::string trace_path, std::string chrome_path)
    : trace_path_(std::move(trace_path)), chrome_path_(std::move(chrome_path)) {
  if (!trace_path_.empty()) file_.emplace(trace_path_);
}

void TraceOutput::attach(sim::TraceRecorder& recorder) {
  recorder.set_sink([this](std::string_view chunk) { take(chunk); });
}

void TraceOutput::take(std::string_view chunk) {
  sha_.update(chunk);
  if (file_) file_->write(chunk);
  if (chrome_path_.empty() || !kept_whole_) return;
  if (kept_.size() + chunk.size() > kChromeMaxBytes) {
    kept_whole_ = false;
    kept_.clear();
    kept_.shrink_to_fit();
    return;
  }
  kept_.append(chunk);
}

TraceOutput::Written TraceOutput::finish(sim::TraceRecorder& recorder) {
  recorder.flush();
  recorder.set_sink(nullptr);
  Written out;
  out.sha256 = sha_.hex();
  if (file_) {
    file_->commit();
    file_.reset();
    out.trace_path = trace_path_;
  }
  if (!chrome_path_.empty()) {
    if (kept_whole_) {
      io::write_file_atomically(chrome_path_, trace::chrome_trace_json(kept_));
      out.chrome_trace_path = chrome_path_;
    } else {
      std::fprintf(stderr, "note: no Chrome trace for %s: the trace is over %zu MiB\n", chrome_path_.c_str(),
                   kChromeMaxBytes >> 20);
    }
  }
  return out;
}

}  // namespace lockstep::driver
