// lockstep-view --window-shot: the real window as a user sees it, opened on the current
// display (X11; Xvfb in tests), stepped, captured from the screen. Proves the window itself
// works on a display server, where --screenshot only exercises the painters.
#pragma once

#include <QString>

namespace lockstep::view {

// Opens `file`, applies `query` (a search, EventFilter syntax) and steps to `step` (empty:
// the search's first match, else the violation or witness, else the last step); writes the
// screen's picture of the window to `out` (PNG). Returns 0, or 2 after a message on stderr.
int window_shot(const QString& out, const QString& file, const QString& step, const QString& query);

}  // namespace lockstep::view
