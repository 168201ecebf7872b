#pragma once
// The desktop entry point: options of the window-mode command line.
#include <QStringList>

#include <string>
#include <vector>

namespace hwl::ui {

/// Runs the desktop app; returns the process exit status.
///   --start                start the experiment at once
///   --config FILE.json     open this experiment instead of the embedded default
///   --preset NAME          apply a teaching preset
///   --screenshot FILE.png  start the run, save a picture of the window after
///                          --after SECONDS (default 2) mid-run, and quit;
///                          works without a display (offscreen)
///   FILE...                open each (MainWindow::openFile: an experiment,
///                          a run, initial weights), as the file manager does
///                          through the desktop file's %F; one that cannot be
///                          opened is said (stderr, event log) and skipped
int runGui(int argc, char** argv);

/// The app id: the desktop file's name (without .desktop), the icon's name
/// in the icon theme, the AppStream id.
inline const char* const kAppId = "org.hogwildlab.HogwildLab";

/// Names the app to the desktop (QGuiApplication::setDesktopFileName, which
/// Wayland's app id and the task bar match the window to the desktop file
/// by) and gives its windows the theme's icon of that name, or the one
/// installed beside the executable (share/icons under the same prefix) when
/// the theme has none, as in a prefix the desktop does not search.
void setDesktopIdentity();

/// The files named on the command line: paths as given, file: URLs as
/// local paths (a file manager may pass either).
QStringList filesToOpen(const QStringList& arguments);

} // namespace hwl::ui
