#include "gui/render/stats_page.hpp"

#include <algorithm>

#include <QPainter>

#include "gui/render/charts.hpp"

namespace lockstep::view {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString selection_text(const Trace& trace, const Selection& sel) {
  QStringList names;
  for (int th : sel.threads) names << q(trace.thread_name(th));
  return QString("time [%1, %2) ns of %3 ns; threads: %4")
      .arg(sel.t0)
      .arg(sel.t1)
      .arg(trace.end_time)
      .arg(names.isEmpty() ? QString("all") : names.join(", "));
}

void bars(Page& page, const std::map<std::string, std::size_t>& counts) {
  std::vector<std::pair<QString, double>> out;
  for (const auto& [name, n] : counts) out.emplace_back(q(name), static_cast<double>(n));
  page.add(bars_height(out.size()), [out](QPainter& p, QRect r) { paint_bars(p, r, out); });
}

QStringList distribution_cells(const Distribution& d) {
  if (d.count == 0) return {"-", "-", "-", "-", "-", "-"};
  return {ns_text(d.min_ns),
          ns_text(d.mean_ns),
          ns_text(static_cast<double>(d.p50_ns)),
          ns_text(static_cast<double>(d.p99_ns)),
          ns_text(static_cast<double>(d.max_ns)),
          ns_text(static_cast<double>(d.total_ns))};
}

QStringList lock_row(const QString& who, const LockTimes& t) {
  QStringList row{who, count_text(t.hold.count + t.open_holds)};
  row << distribution_cells(t.wait) << distribution_cells(t.hold);
  row << QString("%1 / %2").arg(t.open_waits).arg(t.open_holds);
  return row;
}

void locks(Page& page, const Trace& trace, const Statistics& s) {
  page.heading("Locks: wait (wait to acquire) and hold (acquire to release) times");
  if (s.locks.empty()) {
    page.paragraph(trace.locks.empty() ? "The trace has no lock events (instrumented locks write them)."
                                       : "No lock wait or hold begins in the selection.");
    return;
  }
  const QStringList header{"lock / thread", "acquired", "wait min", "mean", "p50", "p99",   "max",           "total",
                           "hold min",      "mean",     "p50",      "p99",  "max", "total", "open wait/hold"};
  std::vector<QStringList> rows;
  for (const auto& [addr, t] : s.locks) rows.push_back(lock_row(q(trace.address_name(addr)), t));
  for (const auto& [th, t] : s.lock_threads) rows.push_back(lock_row("  " + q(trace.thread_name(th)), t));
  rows.push_back(lock_row("all", s.all_locks));
  std::vector<bool> marks(rows.size(), false);
  marks.back() = true;
  page.table(header, rows, marks);
}

// The command line's --lock-profile table (docs/os.md) for the selection: per (site, lock),
// worst first. A trace written before locks reported their sites has one site, "?".
void lock_profile(Page& page, const Statistics& s) {
  if (s.lock_profile.empty()) return;
  page.heading("Lock profile: per (file:line, lock), worst first (waits and holds wholly inside the selection)");
  const QStringList header{"lock", "site", "acquired",   "contended", "wait total",
                           "max",  "avg",  "hold total", "max",       "avg"};
  std::vector<QStringList> rows;
  for (const profile::LockProfileEntry& e : s.lock_profile.entries) {
    const QString site = e.file.empty() ? QString("?") : QString("%1:%2").arg(q(e.file)).arg(e.line);
    rows.push_back({q(e.name), site, count_text(e.acquisitions), count_text(e.contended),
                    ns_text(static_cast<double>(e.wait_total_ns)), ns_text(static_cast<double>(e.wait_max_ns)),
                    ns_text(e.wait_avg_ns()), ns_text(static_cast<double>(e.hold_total_ns)),
                    ns_text(static_cast<double>(e.hold_max_ns)), ns_text(e.hold_avg_ns())});
  }
  page.table(header, rows, std::vector<bool>(rows.size(), false));
}

void futex_queues(Page& page, const Statistics& s) {
  if (s.futex_queues.empty()) return;
  page.heading("Futex bucket queues");
  std::vector<QStringList> rows;
  for (const auto& [bucket, f] : s.futex_queues)
    rows.push_back({QString::number(bucket), count_text(f.enqueues), count_text(f.dequeues),
                    QString::number(f.max_length), QString::number(f.mean_length, 'f', 2)});
  page.table({"bucket", "enqueued", "dequeued", "max length", "mean length"}, rows);
}

void thread_times(Page& page, const Trace& trace, const Statistics& s) {
  page.heading("Time per thread");
  // Shares of the selected time the trace covers (the whole trace's selection ends 1 ns past its end).
  const std::uint64_t end = std::min(s.selection.t1, std::max(trace.end_time, s.selection.t0));
  const std::uint64_t span = end - s.selection.t0;
  std::vector<QStringList> rows;
  for (const auto& [th, t] : s.thread_times) {
    QStringList row{q(trace.thread_name(th))};
    for (ThreadState st : {ThreadState::running, ThreadState::spinning, ThreadState::parked, ThreadState::ready})
      row << QString("%1 (%2%)")
                 .arg(ns_text(static_cast<double>(t.in(st))))
                 .arg(span ? 100.0 * static_cast<double>(t.in(st)) / static_cast<double>(span) : 0, 0, 'f', 1);
    rows.push_back(row);
  }
  page.table({"thread", "running", "spinning", "parked", "ready"}, rows);
}

}  // namespace

Page stats_page(const Trace& trace, const Statistics& s, int width, const StatsPageOptions& options) {
  Page page(width);
  page.heading("Statistics: " + q(trace.name.empty() ? trace.scenario : trace.name));
  page.paragraph(selection_text(trace, s.selection), QColor(90, 90, 90));
  page.gap(6);
  page.figures({{"operations", count_text(s.ops)},
                {"memory accesses", count_text(s.latency.count)},
                {"failed cas", count_text(s.failed_cas)},
                {"latency min", ns_text(static_cast<double>(s.latency.min_ns))},
                {"latency mean", ns_text(s.latency.mean_ns)},
                {"latency p50", ns_text(static_cast<double>(s.latency.p50_ns))},
                {"latency p90", ns_text(static_cast<double>(s.latency.p90_ns))},
                {"latency p99", ns_text(static_cast<double>(s.latency.p99_ns))},
                {"latency max", ns_text(static_cast<double>(s.latency.max_ns))}});
  page.heading("Operations by kind");
  if (s.op_counts.empty()) page.paragraph("No operation starts in the selection.");
  bars(page, s.op_counts);
  if (!s.rmw_counts.empty()) {
    page.paragraph("Read-modify-writes by kind:", QColor(90, 90, 90));
    bars(page, s.rmw_counts);
  }
  page.heading("Latency of memory accesses");
  const HistogramChart chart{s.latency_histogram, {}, options.log_count};
  page.add(kHistogramHeight, [chart](QPainter& p, QRect r) { paint_histogram(p, r, chart); });
  if (!s.sources.empty()) {
    page.heading("Sources: the level that answered each access");
    bars(page, s.sources);
  }
  thread_times(page, trace, s);
  locks(page, trace, s);
  lock_profile(page, s);
  futex_queues(page, s);
  return page;
}

}  // namespace lockstep::view
