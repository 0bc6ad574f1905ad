#include "cli/sweep_table.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "report/headline_figures.hpp"

namespace lockstep::cli {

using report::RowReport;
using report::ScenarioReport;

namespace {

struct Column {
  std::string header;
  bool right = false;
  std::vector<std::string> cells;  // one per row
};

std::string param_of(const RowReport& r, const std::string& path) {
  for (const auto& [p, value] : r.params)
    if (p == path) return value;
  return "-";
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// One column per parameter whose value is not the same in every row (all of them when none
// varies), in the order the rows give them; numbers align right.
std::vector<Column> param_columns(const ScenarioReport& s) {
  std::vector<Column> all;
  for (const RowReport& r : s.rows)
    for (const auto& [path, value] : r.params)
      if (std::none_of(all.begin(), all.end(), [&](const Column& c) { return c.header == path; }))
        all.push_back(Column{path, false, {}});
  std::vector<Column> varying;
  for (Column& c : all) {
    bool numeric = true;
    for (const RowReport& r : s.rows) {
      c.cells.push_back(param_of(r, c.header));
      numeric = numeric && is_number(c.cells.back());
    }
    c.right = numeric;
    const bool varies = std::any_of(c.cells.begin(), c.cells.end(), [&](const auto& v) { return v != c.cells[0]; });
    if (varies) varying.push_back(c);
  }
  return varying.empty() ? all : varying;
}

std::vector<Column> figure_columns(const ScenarioReport& s) {
  std::vector<std::string> names;
  for (const RowReport& r : s.rows)
    for (const auto& [name, value] : r.workload.values) names.push_back(name);
  std::vector<Column> columns;
  for (const report::HeadlineFigure& h : report::headline_figures(names)) {
    Column c{std::string(h.name), true, {}};
    for (const RowReport& r : s.rows) {
      const auto it = std::find_if(r.workload.values.begin(), r.workload.values.end(),
                                   [&](const auto& v) { return v.first == h.name; });
      c.cells.push_back(it == r.workload.values.end() ? "-" : report::format_figure(h, it->second));
    }
    columns.push_back(std::move(c));
  }
  return columns;
}

Column verdict_column(const ScenarioReport& s) {
  Column c{"result", false, {}};
  for (const RowReport& r : s.rows)
    c.cells.push_back(r.matched ? r.outcome() : fmt::format("{}  MISMATCH (expected {})", r.outcome(), r.expected));
  return c;
}

std::string aligned(const std::vector<Column>& columns, std::size_t rows) {
  std::vector<std::size_t> widths;
  for (const Column& c : columns) {
    std::size_t w = c.header.size();
    for (const std::string& cell : c.cells) w = std::max(w, cell.size());
    widths.push_back(w);
  }
  auto line = [&](auto&& text_of) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& text = text_of(columns[i]);
      out += "  ";  // an indent before the first column, a gap between the others
      out += columns[i].right ? fmt::format("{:>{}}", text, widths[i]) : fmt::format("{:<{}}", text, widths[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line([](const Column& c) -> const std::string& { return c.header; });
  for (std::size_t r = 0; r < rows; ++r) out += line([r](const Column& c) -> const std::string& { return c.cells[r]; });
  return out;
}

}  // namespace

std::string sweep_table(const ScenarioReport& report) {
  if (!report.swept || report.rows.empty()) return {};
  std::vector<Column> figures = figure_columns(report);
  if (figures.empty()) return {};
  std::vector<Column> columns = param_columns(report);
  for (Column& c : figures) columns.push_back(std::move(c));
  columns.push_back(verdict_column(report));
  const std::string title = report.name.empty() ? report.scenario : report.name;
  return fmt::format("\n{}: {} rows\n", title, report.rows.size()) + aligned(columns, report.rows.size());
}

}  // namespace lockstep::cli
