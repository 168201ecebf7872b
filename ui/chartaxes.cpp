#include "chartaxes.h"

#include <QValueAxis>
#include <QtMath>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {

// QValueAxis::applyNiceNumbers()'s arithmetic (Qt Charts' looseNiceNumbers,
// Heckbert's "nice numbers"), so that setNiceRange() can tell when setting a
// range would change nothing.
double niceNumber(double x, bool ceiling) {
    const double z = qPow(10, qFloor(std::log10(x)));
    double q = x / z;
    if (ceiling)
        q = q <= 1.0 ? 1 : q <= 2.0 ? 2 : q <= 5.0 ? 5 : 10;
    else
        q = q < 1.5 ? 1 : q < 3.0 ? 2 : q < 7.0 ? 5 : 10;
    return q * z;
}

void looseNiceNumbers(double& min, double& max, int& ticks) {
    const double range = niceNumber(max - min, true);
    const double step = niceNumber(range / (ticks - 1), false);
    min = qFloor(min / step);
    max = qCeil(max / step);
    ticks = int(max - min) + 1;
    min *= step;
    max *= step;
}

} // namespace

// An empty or degenerate range widened so that the axis can show it.
void widenRange(double& lo, double& hi, bool log) {
    if (log) {
        if (hi > lo) {
            lo /= 1.25; // about a tenth of a decade of headroom
            hi *= 1.25;
        } else {
            lo /= 2;
            hi *= 2;
        }
        return;
    }
    if (hi > lo) {
        const double pad = 0.05 * (hi - lo);
        lo -= pad;
        hi += pad;
    } else {
        const double pad = lo == 0 ? 1.0 : 0.1 * std::abs(lo);
        lo -= pad;
        hi += pad;
    }
}

QString tickLabelFormat(double step) {
    if (!(step > 0) || !std::isfinite(step) || step >= 1)
        return QStringLiteral("%.0f");
    const int decimals = std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
    return QStringLiteral("%.%1f").arg(decimals);
}

void setNiceRange(QValueAxis* axis, double lo, double hi) {
    double niceLo = lo, niceHi = hi;
    int ticks = axis->tickCount();
    looseNiceNumbers(niceLo, niceHi, ticks);
    if (niceLo == axis->min() && niceHi == axis->max() && ticks == axis->tickCount())
        return;
    axis->setRange(lo, hi);
    axis->applyNiceNumbers();
    const int n = std::max(2, axis->tickCount());
    axis->setLabelFormat(tickLabelFormat((axis->max() - axis->min()) / (n - 1)));
}

} // namespace hwl::ui
