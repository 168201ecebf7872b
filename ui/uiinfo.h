#pragma once

namespace hwl::ui {
/// True when this build carries the Qt Widgets layer (always, for now). The
/// desktop window arrives with the GUI issue; the app runs headless until then.
bool hasDesktopWindow();
} // namespace hwl::ui
