// lockstep-view --screenshot: renders one view of one or two files headless, to PNG or (for
// a name ending in .svg) SVG, with the painters the window uses.
#pragma once

#include <QString>
#include <QStringList>

namespace lockstep::view {

// The views --view names, in the order the usage lists them.
inline const QStringList kViewNames = {"timeline", "stats", "compare", "result", "sweep"};

// Returns the exit code: 0 written; 2 (after a message on stderr) for an unknown view, the wrong
// number or kind of files for the view, a file that does not parse, or an output that cannot be
// written, or --view sweep of a result without a sweep chart. An empty `view` picks the file's own: result for a
// result, timeline for a trace, compare for two traces.
int screenshot(const QString& out, const QString& view, const QStringList& files);

}  // namespace lockstep::view
