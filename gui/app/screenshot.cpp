#include "gui/app/screenshot.hpp"

#include <cstdio>
#include <memory>
#include <variant>
#include <vector>

#include <QFileInfo>
#include <QPainter>

#include "gui/model/compare.hpp"
#include "gui/model/document.hpp"
#include "gui/model/statistics.hpp"
#include "gui/render/compare.hpp"
#include "gui/render/export.hpp"
#include "gui/render/result_page.hpp"
#include "gui/render/stats_page.hpp"
#include "gui/render/timeline.hpp"

namespace lockstep::view {

namespace {

constexpr int kScreenshotWidth = 1600;
constexpr int kSweepWidth = 900;  // the chart alone: the size of a figure in a README

int fail(const QString& message) {
  std::fprintf(stderr, "lockstep-view: %s\n", qPrintable(message));
  return 2;
}

QString kind_name(const Document& doc) { return std::holds_alternative<Trace>(doc) ? "a trace" : "a result file"; }

// The page's painter keeps pointers into the documents, so the caller keeps them alive.
Picture page_picture(std::shared_ptr<Page> page) {
  return Picture{QSize(page->width(), page->height()), [page](QPainter& p) { page->paint(p); }};
}

Picture picture_of(const QString& view, const std::vector<Document>& docs, const QStringList& files) {
  if (view == "sweep")
    return page_picture(std::make_shared<Page>(*sweep_page(std::get<ResultFile>(docs[0]), kSweepWidth)));
  if (view == "result")
    return page_picture(std::make_shared<Page>(
        result_page(std::get<ResultFile>(docs[0]), ResultPageOptions{0, 0, false, files[0]}, kScreenshotWidth)));
  const Trace& trace = std::get<Trace>(docs[0]);
  if (view == "stats")
    return page_picture(
        std::make_shared<Page>(stats_page(trace, compute_statistics(trace, whole_trace(trace)), kScreenshotWidth)));
  if (view == "compare") {
    const Trace& other = std::get<Trace>(docs[1]);
    const ComparePageOptions options =
        compare_options(trace, other, compare_window(trace, other), "A " + QFileInfo(files[0]).fileName(),
                        "B " + QFileInfo(files[1]).fileName());
    return page_picture(
        std::make_shared<Page>(compare_page(trace, other, compare_traces(trace, other), kScreenshotWidth, options)));
  }
  const int height = std::max(200, TimelineLayout::content_height(trace));
  return Picture{QSize(kScreenshotWidth, height), [&trace, height](QPainter& p) {
                   paint_timeline(p, trace, QRect(0, 0, kScreenshotWidth, height), full_window(trace));
                 }};
}

}  // namespace

int screenshot(const QString& out, const QString& view_asked, const QStringList& files) {
  if (!view_asked.isEmpty() && !kViewNames.contains(view_asked))
    return fail(QString("unknown view '%1' (known: %2)").arg(view_asked, kViewNames.join(", ")));
  if (files.isEmpty() || files.size() > 2) return fail("--screenshot needs one file, or two for --view compare");
  std::vector<Document> docs;
  try {
    for (const QString& f : files) docs.push_back(load_document(f.toStdString()));
  } catch (const std::exception& e) {  // TraceError, ResultError, and bad_alloc on an absurd file
    return fail(QString::fromStdString(e.what()));
  }
  const bool result = std::holds_alternative<ResultFile>(docs[0]);
  const QString view = !view_asked.isEmpty() ? view_asked
                       : files.size() == 2   ? "compare"
                       : result              ? "result"
                                             : "timeline";
  const std::size_t wanted = view == "compare" ? 2 : 1;
  if (files.size() != static_cast<qsizetype>(wanted))
    return fail(QString("--view %1 takes %2 file%3, not %4")
                    .arg(view)
                    .arg(wanted)
                    .arg(wanted == 1 ? "" : "s")
                    .arg(files.size()));
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const bool is_result = std::holds_alternative<ResultFile>(docs[i]);
    const bool wants_result = view == "result" || view == "sweep";
    if (is_result != wants_result)
      return fail(QString("--view %1 shows %2, and %3 is %4")
                      .arg(view, wants_result ? "a result file" : "traces", files[static_cast<qsizetype>(i)],
                           kind_name(docs[i])));
  }
  if (view == "sweep" && !sweep_page(std::get<ResultFile>(docs[0]), kSweepWidth))
    return fail(QString("--view sweep: %1 has no sweep over a numeric parameter with a workload figure to chart")
                    .arg(files[0]));
  const QString error = write_picture(out, picture_of(view, docs, files));
  return error.isEmpty() ? 0 : fail(error);
}

}  // namespace lockstep::view
