#pragma once
// Axis arithmetic of TrainingChart: padding a data range, and ticks at round
// values with short labels ("0, 0.5M, 1M, 1.5M"; "0.01, 0.1, 1" on a log
// axis), never scientific, never two alike, never more decimals than the tick
// step needs. The axes are QCategoryAxis, so that each label is written here
// rather than by a printf format (which cannot write "14M").
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

QT_BEGIN_NAMESPACE
class QCategoryAxis;
QT_END_NAMESPACE

namespace hwl::ui {

/// Relative difference under which two values count as one (floats carry
/// about 7 significant digits): a range that narrow is degenerate.
inline constexpr double kSameValue = 1e-5;
/// Widens an empty or degenerate range [lo, hi] so that an axis can show it:
/// 5% padding (linear) or about a tenth of a decade (log); a degenerate one
/// (kSameValue) becomes its middle +-10% (+-1 about 0).
void widenRange(double& lo, double& hi, bool log);

/// An axis' range and its ticks: positions (in axis units: log10 of the
/// value on a log axis) and their labels, as many as positions, all different.
struct AxisTicks {
    double lo = 0, hi = 1;
    QList<double> at;
    QStringList labels;
};

/// "14M", "250k", "1.5M", "0.05", "-3": `v` written with as many decimals as
/// ticks `step` apart need, in units of `unit` (1, 1e3 "k", 1e6 "M" or 1e9 "G").
QString tickLabel(double v, double step, double unit);
/// The unit tickLabel() writes an axis whose largest value is `maxAbs` in:
/// 1 below ten thousand ("2500"), then k, M and G.
double tickUnit(double maxAbs);

/// About `ticks` intervals over [lo, hi] at 1, 2 or 5 times a power of ten
/// apart, and never less than `minStep` (1 for a field of whole numbers: no
/// tick at 1.5 workers). `roundOut`: the range grows to the nearest ticks (at
/// most one empty tick step at each end); else it stays (a zoom) and the
/// ticks fall inside it, at least two of them where `minStep` allows.
/// lo < hi, both finite.
AxisTicks niceTicks(double lo, double hi, int ticks, bool roundOut = true, double minStep = 0);
/// Ticks for a log10 axis over [lo, hi] (log10 of the values): powers of ten
/// over several decades, 1-2-5 over one or two, round values in between when
/// the range is narrower; labels are the values in plain notation.
AxisTicks logTicks(double lo, double hi, int ticks);
/// Gives `axis` those ticks and range; nothing when it has them already (a
/// range change makes every series recompute its geometry). Returns whether
/// the labels changed (they then need another width).
bool applyTicks(QCategoryAxis* axis, const AxisTicks& ticks);

/// Tick intervals that fit `pixels` of axis with labels `spacing` pixels
/// apart at least (Qt Charts elides labels that do not fit): 1 to 5.
int ticksFor(double pixels, double spacing);
/// Tick intervals for a horizontal axis over [lo, hi] of `pixels`: the most,
/// up to 5, whose labels as niceTicks() writes them, `labelWidth` pixels
/// each, keep `gap` pixels between them; 1 when none do.
int ticksThatFit(double lo, double hi, double pixels,
                 const std::function<double(const QString&)>& labelWidth, double gap);
/// Of make(5), make(4) ... make(1), the first whose labels fit an axis of
/// `pixels`: each `labelSize` pixels along the axis (width on a horizontal
/// one, height on a vertical one) and `gap` apart, between the closest two
/// ticks and, when `evenShares`, in an even share of the axis each (Qt Charts
/// gives a vertical axis' labels the axis' height over their number, and
/// elides those taller). When none do, make(1) with every second, third...
/// of its ticks, the first that fits, at last its first and last tick.
AxisTicks fittingTicks(const std::function<AxisTicks(int)>& make, double pixels,
                       const std::function<double(const QString&)>& labelSize, double gap,
                       bool evenShares);

} // namespace hwl::ui
