#include "report/headline_figures.hpp"

#include <algorithm>

#include "report/workload_figures.hpp"

namespace lockstep::report {

std::vector<HeadlineFigure> headline_figures(const std::vector<std::string>& names) {
  std::vector<const FigureInfo*> found;
  for (const FigureInfo& f : workload_figures())
    if (f.headline > 0 && std::find(names.begin(), names.end(), f.name) != names.end()) found.push_back(&f);
  std::sort(found.begin(), found.end(),
            [](const FigureInfo* a, const FigureInfo* b) { return a->headline < b->headline; });
  std::vector<HeadlineFigure> out;
  for (const FigureInfo* f : found) out.push_back({f->name, f->unit, f->scale});
  return out;
}

std::string format_figure(const HeadlineFigure& figure, double raw, const SiStyle& style) {
  return format_si(raw * figure.scale, figure.unit, style);
}

}  // namespace lockstep::report
