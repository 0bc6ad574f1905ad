// lockstep-view on a trace of about a million events (it must open, and pan smoothly):
// how long opening takes (reading and parsing the file, deriving the arrows and bands), and how long
// one frame of the timeline takes to paint at 1600x900 zoomed out, zoomed in, and while
// panning. Painting goes into a QImage on the offscreen platform, the widget's own code
// path (paint_timeline). The trace is LOCKSTEP_VIEWER_TRACE (bench/viewer.sh makes it).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include "gui/model/bands.hpp"
#include "gui/model/flows.hpp"
#include "gui/model/statistics.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/timeline.hpp"

using namespace lockstep::view;

namespace {

constexpr int kWidth = 1600;
constexpr int kHeight = 900;

std::string trace_path() {
  const char* path = std::getenv("LOCKSTEP_VIEWER_TRACE");
  if (path == nullptr) throw std::runtime_error("set LOCKSTEP_VIEWER_TRACE to a trace (bench/viewer.sh does)");
  return path;
}

const Trace& shared_trace() {
  static const Trace trace = load_trace(trace_path());
  return trace;
}

const std::vector<ThreadBands>& shared_bands() {
  static const std::vector<ThreadBands> bands = derive_bands(shared_trace());
  return bands;
}

const FlowSet& shared_flows() {
  static const FlowSet flows = derive_flows(shared_trace());
  return flows;
}

void BM_ViewerOpen(benchmark::State& state) {
  std::size_t events = 0;
  for (auto _ : state) {
    const Trace trace = load_trace(trace_path());
    const FlowSet flows = derive_flows(trace);
    const std::vector<ThreadBands> bands = derive_bands(trace);
    events = trace.ops.size() + trace.locks.size() + trace.futexes.size();
    benchmark::DoNotOptimize(flows.flows.data());
  }
  state.counters["events"] = static_cast<double>(events);
}
BENCHMARK(BM_ViewerOpen)->Unit(benchmark::kMillisecond)->Iterations(3);

// One frame with the view spanning `fraction` of the trace, starting at `at` (0..1).
void paint_frame(benchmark::State& state, double fraction, bool pan) {
  const Trace& trace = shared_trace();
  QImage image(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
  PaintOptions options;
  options.flows = &shared_flows();
  options.bands = &shared_bands();
  const TimeWindow full = full_window(trace);
  const double span = (full.t1 - full.t0) * fraction;
  double start = full.t0 + (full.t1 - full.t0 - span) / 2;
  std::size_t ticks = 0;
  for (auto _ : state) {
    if (pan)
      start = full.t0 + std::fmod(start - full.t0 + span / 20, full.t1 - full.t0 - span);  // 1/20 of a view per frame
    QPainter p(&image);
    ticks = paint_timeline(p, trace, image.rect(), TimeWindow{start, start + span}, options).ops_drawn;
  }
  state.counters["ticks"] = static_cast<double>(ticks);
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The statistics panel's figures over the whole trace and over a tenth of it (what a
// selection in the timeline recomputes).
void statistics(benchmark::State& state, double fraction) {
  const Trace& trace = shared_trace();
  const Selection selection{0, static_cast<std::uint64_t>(static_cast<double>(trace.end_time) * fraction) + 1, {}};
  std::size_t ops = 0;
  for (auto _ : state) ops = compute_statistics(trace, selection).ops;
  state.counters["ops"] = static_cast<double>(ops);
}
void BM_ViewerStatisticsWhole(benchmark::State& state) { statistics(state, 1.0); }
void BM_ViewerStatisticsTenth(benchmark::State& state) { statistics(state, 0.1); }
BENCHMARK(BM_ViewerStatisticsWhole)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ViewerStatisticsTenth)->Unit(benchmark::kMillisecond);

void BM_ViewerFrameWhole(benchmark::State& state) { paint_frame(state, 1.0, false); }
void BM_ViewerFrameZoomed(benchmark::State& state) { paint_frame(state, 0.001, false); }
void BM_ViewerPanZoomedOut(benchmark::State& state) { paint_frame(state, 0.25, true); }
void BM_ViewerPanZoomedIn(benchmark::State& state) { paint_frame(state, 0.001, true); }
BENCHMARK(BM_ViewerFrameWhole)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ViewerFrameZoomed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ViewerPanZoomedOut)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ViewerPanZoomedIn)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  // Text needs a QGuiApplication; offscreen unless a platform was asked for.
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QGuiApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
