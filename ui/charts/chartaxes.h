#pragma once
// Axis arithmetic of TrainingChart: padding a data range, and "nice" linear
// ranges whose tick labels are round numbers in plain notation (never
// scientific, never more decimals than the tick step needs).
#include <QString>

#include <functional>

QT_BEGIN_NAMESPACE
class QValueAxis;
QT_END_NAMESPACE

namespace hwl::ui {

/// Widens an empty or degenerate range [lo, hi] so that an axis can show it:
/// 5% padding (linear) or about a tenth of a decade (log).
void widenRange(double& lo, double& hi, bool log);

/// Sets `axis` to [lo, hi] rounded out to about `ticks` intervals at round
/// values (1, 2 or 5 times a power of ten apart), with the label format they need
/// (tickLabelFormat()); nothing when that is what it shows already (a range
/// change makes every series recompute its geometry). lo < hi. Returns
/// whether the label format changed (the labels then need another width).
bool setNiceRange(QValueAxis* axis, double lo, double hi, int ticks = 5);
/// Tick intervals that fit `pixels` of axis with labels `spacing` pixels
/// apart at least (Qt Charts elides labels that do not fit): 1 to 5.
int ticksFor(double pixels, double spacing);
/// Tick intervals for a horizontal axis over [lo, hi] of `pixels`: the most,
/// up to 5, whose labels as setNiceRange() writes them ("4000000" is wider
/// than "0.5"), `labelWidth` pixels each, keep `gap` pixels between them; 1
/// when none do. ticksFor() with the labels' real width.
int ticksThatFit(double lo, double hi, double pixels,
                 const std::function<double(const QString&)>& labelWidth, double gap);

/// A printf format for ticks `step` apart: "%.0f" for steps of 1 and more
/// (1000000, not 1e+06), else as many decimals as the step has (0.05: "%.2f").
QString tickLabelFormat(double step);

} // namespace hwl::ui
