#include "gui/model/sweep_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "report/headline_figures.hpp"

namespace lockstep::view {

namespace {

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

const Figure* param(const ResultRow& row, const std::string& name) {
  for (const Figure& p : row.params)
    if (p.name == name) return &p;
  return nullptr;
}

// The swept parameters, in the first row's order, with their distinct values.
struct Param {
  std::string name;
  std::set<std::string> values;
  bool numeric = true;
};

std::vector<Param> params_of(const ScenarioResult& s) {
  std::vector<Param> out;
  for (const ResultRow& row : s.rows)
    for (const Figure& p : row.params) {
      auto it = std::find_if(out.begin(), out.end(), [&](const Param& q) { return q.name == p.name; });
      if (it == out.end()) it = out.insert(out.end(), Param{p.name, {}, true});
      it->values.insert(p.value);
      it->numeric = it->numeric && number(p.value).has_value();
    }
  return out;
}

// Two decades or more, all above zero.
bool spans_decades(const std::vector<double>& values) {
  if (values.empty()) return false;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 && *hi / *lo >= 100;
}

}  // namespace

std::optional<SweepChart> sweep_chart(const ScenarioResult& s) {
  if (!s.swept) return std::nullopt;
  const std::vector<Param> params = params_of(s);
  const Param* x = nullptr;
  for (const Param& p : params)
    if (p.numeric && p.values.size() >= 2 && (!x || p.values.size() > x->values.size())) x = &p;
  if (!x) return std::nullopt;
  std::vector<std::string> names;
  for (const ResultRow& row : s.rows)
    for (const Figure& m : row.metrics) names.push_back(m.name);
  const std::vector<report::HeadlineFigure> headlines = report::headline_figures(names);
  if (headlines.empty()) return std::nullopt;

  SweepChart chart;
  chart.x_name = x->name;
  chart.y_name = std::string(headlines.front().name);
  chart.y_unit = std::string(headlines.front().unit);
  chart.y_scale = headlines.front().scale;
  // The series: the other parameters that vary; one of them is named by its values alone.
  std::vector<std::string> others;
  for (const Param& p : params)
    if (&p != x && p.values.size() >= 2) others.push_back(p.name);
  if (others.size() == 1) chart.series_name = others.front();
  for (std::size_t i = 0; i < others.size() && others.size() > 1; ++i) chart.series_name += (i ? ", " : "") + others[i];

  std::vector<double> xs, ys;
  for (const ResultRow& row : s.rows) {
    const Figure* xp = param(row, x->name);
    const Figure* yf = row.figure(chart.y_name);
    const std::optional<double> y = yf ? number(yf->value) : std::nullopt;
    if (!xp || !y) continue;
    std::string label;
    for (const std::string& other : others) {
      const Figure* o = param(row, other);
      const std::string value = o ? o->value : "-";
      label += (label.empty() ? "" : ", ") + (others.size() == 1 ? value : other + "=" + value);
    }
    auto series = std::find_if(chart.series.begin(), chart.series.end(),
                               [&](const SweepSeries& ss) { return ss.label == label; });
    if (series == chart.series.end()) series = chart.series.insert(chart.series.end(), SweepSeries{label, {}});
    series->points.push_back(SweepPoint{*number(xp->value), *y, xp->value});
    xs.push_back(series->points.back().x);
    ys.push_back(*y);
  }
  if (chart.series.empty()) return std::nullopt;
  for (SweepSeries& ss : chart.series)
    std::stable_sort(ss.points.begin(), ss.points.end(),
                     [](const SweepPoint& a, const SweepPoint& b) { return a.x < b.x; });
  chart.log_x = spans_decades(xs);
  chart.log_y = spans_decades(ys);
  return chart;
}

std::optional<std::pair<std::size_t, SweepChart>> first_sweep_chart(const ResultFile& result) {
  for (std::size_t i = 0; i < result.scenarios.size(); ++i)
    if (std::optional<SweepChart> chart = sweep_chart(result.scenarios[i])) return std::make_pair(i, *chart);
  return std::nullopt;
}

}  // namespace lockstep::view
