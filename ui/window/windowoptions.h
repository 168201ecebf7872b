#pragma once
// The window's command-line options (hogwild-lab without --headless), in one
// table of plain strings: GuiApp makes its QCommandLineParser of them and
// hwl-docgen the manual page's part on the window, so each is said once.
// No Qt here: hwl-docgen links no Qt.

namespace hwl::ui {

struct WindowOption {
    const char* name;                   ///< the flag without its dashes
    const char* valueName = nullptr;    ///< what --help calls its value; null: a switch
    const char* help = "";              ///< --help's sentence
    const char* defaultValue = nullptr; ///< the value when the option is not given
};

/// In the order --help lists them.
inline constexpr WindowOption kWindowOptions[] = {
    {"start", nullptr, "Start the experiment at once."},
    {"config", "file.json", "Open this experiment file."},
    {"preset", "id", "Apply a teaching preset by id or name (see --list-presets)."},
    {"screenshot", "file.png", "Save a picture of the window mid-run and quit."},
    {"after", "seconds",
     "Seconds into the run for --screenshot (default 2), or \"end\": once the run (a "
     "comparison: its last run) ended and its verdict shows.",
     "2"},
    {"size", "WxH", "The window's size for --screenshot (default 1400x900).", "1400x900"},
    {"race-order", "n",
     "With --screenshot: picture the race stepper instead, this order (0-19) stepped to its "
     "end."},
    {"presentation", nullptr, "Open in presentation, for a projector (View > Presentation)."},
    {"tab", "name",
     "Open this tab under the charts: workers, timeline, events or runs (View menu, "
     "Ctrl+1 to Ctrl+4)."},
};

/// What the files named after the options are.
inline constexpr const char* kWindowFilesHelp =
    "Open these: experiments (.json), runs (metrics.csv or a --out folder), initial weights "
    "(.safetensors).";

} // namespace hwl::ui
