#pragma once
// Asks the size a chart is saved at: width and height in pixels, with a few
// presets (a projector's 1280 x 720, full HD, a print-sized 3840 x 2160).
#include <QSize>

#include <optional>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace hwl::ui {

/// The size chosen, or nothing when cancelled. Starts at `initial`.
std::optional<QSize> askChartSize(QWidget* parent, QSize initial);

} // namespace hwl::ui
