#include "gui/render/result_page.hpp"

#include <algorithm>

#include <QPainter>

#include "gui/render/charts.hpp"

namespace lockstep::view {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// "futex hash ...: ops_per_s by workload.futexes and design.futex".
std::string sweep_title(const ScenarioResult& s, const SweepChart& chart) {
  return (s.name.empty() ? s.scenario : s.name) + ": " + chart.y_name + " by " + chart.x_name +
         (chart.series_name.empty() ? "" : " and " + chart.series_name);
}

QColor verdict_color(const std::string& result) {
  if (result == "pass") return QColor(46, 125, 50);
  if (result == "violation") return QColor(198, 40, 40);
  if (result == "reachable") return QColor(0, 105, 92);
  return QColor(69, 90, 100);  // unreachable, or a newer outcome
}

QString figure_text(const ResultRow& row, const char* name) {
  const Figure* f = row.figure(name);
  return f ? q(f->value) : QString("-");
}

void verdict(Page& page, const ResultRow& row) {
  const QString text = q(row.verdict());
  const QColor color = verdict_color(row.result);
  const QString expectation = QString("expected %1: %2")
                                  .arg(q(row.expected.empty() ? std::string("?") : row.expected))
                                  .arg(!row.matched   ? "not said"
                                       : *row.matched ? "matched"
                                                      : "MISMATCH");
  page.add(30, [text, color, expectation](QPainter& p, QRect r) {
    QFont f = Page::heading_font();
    p.setFont(f);
    const int w = QFontMetrics(f).horizontalAdvance(text) + 24;
    p.fillRect(QRect(r.left(), r.top() + 2, w, r.height() - 4), color);
    p.setPen(Qt::white);
    p.drawText(QRect(r.left(), r.top() + 2, w, r.height() - 4), Qt::AlignCenter, text);
    p.setFont(Page::body_font());
    p.setPen(Qt::black);
    p.drawText(QRect(r.left() + w + 12, r.top(), r.width() - w - 12, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
               expectation);
  });
  if (!row.message.empty()) page.paragraph(q(row.message));
}

// The workload figures whose values differ between rows, in the first row's order: the ones a
// sweep is about (round_trip_ns across designs), not the ones every row shares nor the ones that
// only repeat a swept parameter (`design` under `design.futex`).
std::vector<std::string> varying_metrics(const ResultFile& result) {
  constexpr std::size_t kMaxColumns = 6;
  const auto rows = result_rows(result);
  std::vector<std::string> names;
  for (const Figure& f : result.scenarios[rows[0].first].rows[rows[0].second].metrics) {
    const bool varies = std::any_of(rows.begin(), rows.end(), [&](const auto& sr) {
      const Figure* other = result.scenarios[sr.first].rows[sr.second].figure(f.name);
      return !other || other->value != f.value;
    });
    const bool repeats_param = std::all_of(rows.begin(), rows.end(), [&](const auto& sr) {
      const ResultRow& row = result.scenarios[sr.first].rows[sr.second];
      const Figure* mine = row.figure(f.name);
      return mine &&
             std::any_of(row.params.begin(), row.params.end(), [&](const Figure& p) { return p.value == mine->value; });
    });
    if (repeats_param) continue;
    if (varies && names.size() < kMaxColumns) names.push_back(f.name);
  }
  return names;
}

// Every row of the file, the shown one highlighted: the overview of a sweep or of several scenarios.
void rows_table(Page& page, const ResultFile& result, const ResultPageOptions& o) {
  const std::vector<std::string> metrics = varying_metrics(result);
  QStringList header{"#", "scenario / parameters", "result", "matched", "executions", "steps", "virtual ns", "host s"};
  for (const std::string& m : metrics) header << q(m);
  std::vector<QStringList> rows;
  std::vector<bool> current;
  int n = 0;
  for (const auto& [si, ri] : result_rows(result)) {
    const ScenarioResult& s = result.scenarios[si];
    const ResultRow& row = s.rows[ri];
    const QString what = row.params.empty() ? q(s.name.empty() ? s.scenario : s.name) : q(row.params_text());
    rows.push_back({QString::number(++n), what, q(row.verdict()),
                    !row.matched   ? ""
                    : *row.matched ? "ok"
                                   : "MISMATCH",
                    figure_text(row, "executions"), figure_text(row, "steps"), figure_text(row, "virtual_time_ns"),
                    figure_text(row, "elapsed_s")});
    for (const std::string& m : metrics) rows.back() << figure_text(row, m.c_str());
    current.push_back(si == o.scenario && ri == o.row);
  }
  page.heading(QString("Rows (%1)").arg(rows.size()));
  page.table(header, rows, current);
}

std::vector<std::pair<QString, QString>> pairs_of(const std::vector<Figure>& figures) {
  std::vector<std::pair<QString, QString>> out;
  for (const Figure& f : figures) out.emplace_back(q(f.name), q(f.value));
  return out;
}

void measurements(Page& page, const ResultRow& row, bool log_count) {
  if (!row.histogram.empty()) {
    std::uint64_t samples = 0;
    for (const HistogramBin& b : row.histogram) samples += b.count;
    QStringList peaks;
    for (double pk : row.peaks_ns) peaks << QString("%1 ns").arg(pk);
    page.heading("Latency histogram");
    page.paragraph(QString("%1 accesses in %2 bins; peaks: %3")
                       .arg(count_text(samples))
                       .arg(row.histogram.size())
                       .arg(peaks.isEmpty() ? QString("none") : peaks.join(", ")));
    const HistogramChart chart{row.histogram, row.peaks_ns, log_count};
    page.add(kHistogramHeight, [chart](QPainter& p, QRect r) { paint_histogram(p, r, chart); });
  }
  if (!row.c2c_ns.empty()) {
    page.heading("Core-to-core latency (one way, ns)");
    const auto cpus = row.c2c_cpus;
    const auto matrix = row.c2c_ns;
    page.add(heatmap_height(cpus.size(), page.inner_width()),
             [cpus, matrix](QPainter& p, QRect r) { paint_heatmap(p, r, cpus, matrix); });
  }
  if (!row.sources.empty()) {
    page.heading("Sources: the level that answered each access");
    std::vector<std::pair<QString, double>> bars;
    for (const auto& [level, n] : row.sources) bars.emplace_back(q(level), static_cast<double>(n));
    page.add(bars_height(bars.size()), [bars](QPainter& p, QRect r) { paint_bars(p, r, bars); });
  }
}

// The sweep chart (gui/model/sweep_chart.hpp) under a heading that says what it plots.
void sweep_section(Page& page, const ScenarioResult& s, const SweepChart& chart) {
  page.heading(q(sweep_title(s, chart)));
  page.add(kSweepChartHeight, [chart](QPainter& p, QRect r) { paint_sweep_chart(p, r, chart); });
}

void files(Page& page, const ResultRow& row) {
  std::vector<std::pair<QString, QString>> named;
  if (!row.trace.empty()) named.emplace_back("trace", q(row.trace));
  if (!row.chrome_trace.empty()) named.emplace_back("chrome trace", q(row.chrome_trace));
  if (!row.schedule.empty()) named.emplace_back("schedule", q(row.schedule));
  if (!row.replay_command.empty()) named.emplace_back("replay", q(row.replay_command));
  if (named.empty()) return;
  page.heading("Files");
  page.figures(named);
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> result_rows(const ResultFile& result) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t s = 0; s < result.scenarios.size(); ++s)
    for (std::size_t r = 0; r < result.scenarios[s].rows.size(); ++r) out.emplace_back(s, r);
  return out;
}

Page result_page(const ResultFile& result, const ResultPageOptions& o, int width) {
  Page page(width);
  const ScenarioResult& s = result.scenarios.at(o.scenario);
  const ResultRow& row = s.rows.at(o.row);
  page.heading(q(s.name.empty() ? s.scenario : s.name) +
               (row.params.empty() ? "" : "  [" + q(row.params_text()) + "]"));
  page.paragraph(QString("scenario %1 | lockstep %2 | platform %3%4")
                     .arg(q(s.scenario), q(s.command), q(s.platform.empty() ? std::string("?") : s.platform),
                          o.file.isEmpty() ? QString() : " | file " + o.file),
                 QColor(90, 90, 90));
  page.gap(6);
  verdict(page, row);
  if (const std::optional<SweepChart> chart = sweep_chart(s)) sweep_section(page, s, *chart);
  if (result_rows(result).size() > 1) rows_table(page, result, o);
  page.heading("Key figures");
  page.figures(pairs_of(row.figures));
  if (!row.metrics.empty()) {
    page.heading("Workload figures");
    page.figures(pairs_of(row.metrics));
  }
  measurements(page, row, o.log_count);
  if (row.counterexample) {
    page.heading("Counterexample");
    page.figures(pairs_of(row.counterexample->figures));
    page.gap(6);
    QStringList steps;
    for (const std::string& line : row.counterexample->interleaving) steps << q(line);
    page.lines(steps, true);
  }
  files(page, row);
  return page;
}

std::optional<Page> sweep_page(const ResultFile& result, int width) {
  const auto found = first_sweep_chart(result);
  if (!found) return std::nullopt;
  Page page(width);
  sweep_section(page, result.scenarios[found->first], found->second);
  return page;
}

}  // namespace lockstep::view
