#pragma once
// What a chart writes on screen: every text item of its scene (title, axis
// titles, tick labels, legend entries) as plain text, and those Qt Charts
// cut short with "..." because they did not fit. Tests and the presentation
// mode use it to check that no label is ever elided.
#include <QStringList>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace hwl::ui {

/// The plain text of every visible text item in `chart`'s scene, in scene
/// order; empty when the chart has no scene yet (not in a view).
QStringList chartTexts(const QChart* chart);
/// Those of chartTexts() that hold the ellipsis Qt Charts puts in a label
/// it truncates: "..." in Qt 6.4 (U+2026 counts too).
QStringList elidedTexts(const QChart* chart);

} // namespace hwl::ui
