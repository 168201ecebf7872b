#pragma once
// The desktop entry point: options of the window-mode command line.
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
int runGui(int argc, char** argv);

} // namespace hwl::ui
