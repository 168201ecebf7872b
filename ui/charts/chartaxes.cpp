#include "charts/chartaxes.h"

#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {

/// The 1, 2 or 5 times a power of ten nearest to `x` (> 0).
double niceStep(double x) {
    const double z = std::pow(10.0, std::floor(std::log10(x)));
    const double q = x / z;
    return (q < 1.5 ? 1 : q < 3.5 ? 2 : q < 7.5 ? 5 : 10) * z;
}

/// [lo, hi] rounded out to about `ticks` intervals at round values.
struct NiceRange {
    double lo, hi, step;
    int count; // tick marks, ends included
};

NiceRange niceRange(double lo, double hi, int ticks) {
    // The range rounded out to the step only: at most one tick step of the
    // axis is empty at each end (applyNiceNumbers() could leave half the axis
    // empty, 0..4000 for data up to 2100).
    const double step = niceStep((hi - lo) / std::max(1, ticks));
    const double niceLo = std::floor(lo / step + 1e-9) * step;
    const double niceHi = std::ceil(hi / step - 1e-9) * step;
    const int count = std::clamp(int(std::lround((niceHi - niceLo) / step)) + 1, 2, 12);
    return {niceLo, niceHi, step, count};
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

int ticksFor(double pixels, double spacing) {
    if (!(pixels > 0) || !(spacing > 0))
        return 5;
    return std::clamp(int(pixels / spacing), 1, 5);
}

int ticksThatFit(double lo, double hi, double pixels,
                 const std::function<double(const QString&)>& labelWidth, double gap) {
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || !(pixels > 0))
        return 5;
    for (int ticks = 5; ticks > 1; --ticks) {
        const NiceRange r = niceRange(lo, hi, ticks);
        const QByteArray format = tickLabelFormat(r.step).toLatin1();
        // The widest labels are at the ends: the most digits, and the sign.
        const double widest = std::max(labelWidth(QString::asprintf(format.constData(), r.lo)),
                                       labelWidth(QString::asprintf(format.constData(), r.hi)));
        if (pixels / (r.count - 1) >= widest + gap)
            return ticks;
    }
    return 1;
}

QString tickLabelFormat(double step) {
    if (!(step > 0) || !std::isfinite(step) || step >= 1)
        return QStringLiteral("%.0f");
    const int decimals = std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
    return QStringLiteral("%.%1f").arg(decimals);
}

bool setNiceRange(QValueAxis* axis, double lo, double hi, int ticks) {
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return false;
    const NiceRange r = niceRange(lo, hi, ticks);
    if (r.lo == axis->min() && r.hi == axis->max() && r.count == axis->tickCount())
        return false; // a range change makes every series recompute its geometry
    axis->setRange(r.lo, r.hi);
    axis->setTickCount(r.count);
    const QString format = tickLabelFormat(r.step);
    const bool relabelled = format != axis->labelFormat();
    axis->setLabelFormat(format);
    // Qt Charts sizes an axis' label room when its labels appear: hide and
    // show them so that other labels ("75" after "0.5") get room, not "…".
    // (Only when the nice range changes: a few times in a run.)
    axis->setLabelsVisible(false);
    axis->setLabelsVisible(true);
    return relabelled;
}

} // namespace hwl::ui
