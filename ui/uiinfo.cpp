#include "uiinfo.h"

namespace hwl::ui {
bool hasDesktopWindow() {
    return false;
}
} // namespace hwl::ui
