#include "widgets/chartaxes.h"

#include <QCategoryAxis>

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

constexpr int kMaxTicks = 12;

/// Multiples of `step` in [lo, hi] (with a little tolerance at the ends).
QList<double> multiplesIn(double lo, double hi, double step) {
    QList<double> at;
    const double first = std::ceil(lo / step - 1e-9);
    const double last = std::floor(hi / step + 1e-9);
    for (double k = first; k <= last && at.size() <= 4 * kMaxTicks; ++k)
        at << (k == 0 ? 0.0 : k * step); // not -0
    return at;
}

void labelLinear(AxisTicks& t, double step) {
    const double unit = tickUnit(std::max(std::abs(t.lo), std::abs(t.hi)));
    for (const double v : t.at)
        t.labels << tickLabel(v, step, unit);
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
    // Values a float's rounding apart are one value (a forgot-to-share
    // run's accuracy: 8.8666668 and 8.8666672), not a range to zoom into.
    if (hi - lo > kSameValue * std::max(std::abs(lo), std::abs(hi))) {
        const double pad = 0.05 * (hi - lo);
        lo -= pad;
        hi += pad;
    } else {
        const double mid = 0.5 * (lo + hi);
        const double pad = mid == 0 ? 1.0 : 0.1 * std::abs(mid);
        lo = mid - pad;
        hi = mid + pad;
    }
}

double tickUnit(double maxAbs) {
    return maxAbs >= 1e9 ? 1e9 : maxAbs >= 1e6 ? 1e6 : maxAbs >= 1e4 ? 1e3 : 1;
}

QString tickLabel(double v, double step, double unit) {
    if (v == 0 || !std::isfinite(v))
        return QStringLiteral("0");
    if (std::abs(v) >= 1e12) { // past G (a diverged loss): "2.5e24", not 25 digits and a G
        QString mantissa =
            QString::number(v / std::pow(10.0, std::floor(std::log10(std::abs(v)))), 'f', 2);
        while (mantissa.endsWith(QLatin1Char('0')))
            mantissa.chop(1);
        if (mantissa.endsWith(QLatin1Char('.')))
            mantissa.chop(1);
        return mantissa + QStringLiteral("e%1").arg(int(std::floor(std::log10(std::abs(v)))));
    }
    const double scaledStep = step / unit;
    const int decimals =
        scaledStep > 0 ? std::clamp(int(std::ceil(-std::log10(scaledStep) - 1e-9)), 0, 12) : 0;
    QString s = QString::number(v / unit, 'f', decimals);
    if (decimals > 0) { // "1.50M" -> "1.5M", "2.0" -> "2": the step still tells them apart
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    if (s == QLatin1String("-0"))
        s = QStringLiteral("0");
    const char* suffix = unit >= 1e9 ? "G" : unit >= 1e6 ? "M" : unit >= 1e3 ? "k" : "";
    return s + QLatin1String(suffix);
}

AxisTicks niceTicks(double lo, double hi, int ticks, bool roundOut, double minStep) {
    AxisTicks t;
    t.lo = lo;
    t.hi = hi;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return t;
    double step = std::max(minStep, niceStep((hi - lo) / std::clamp(ticks, 1, kMaxTicks)));
    if (roundOut) {
        // Rounded out to the step only: at most one tick step of the axis is
        // empty at each end (not 0..4000 for data up to 2100).
        t.lo = std::floor(lo / step + 1e-9) * step;
        t.hi = std::ceil(hi / step - 1e-9) * step;
    }
    t.at = multiplesIn(t.lo, t.hi, step);
    // A zoomed range may hold a single multiple: finer steps until two fit.
    for (int i = 0; t.at.size() < 2 && i < 6 && step > minStep; ++i) {
        step = std::max(minStep, niceStep(step / 2.2));
        t.at = multiplesIn(t.lo, t.hi, step);
    }
    while (t.at.size() > kMaxTicks) {
        step = niceStep(step * 2.2);
        t.at = multiplesIn(t.lo, t.hi, step);
    }
    labelLinear(t, step);
    return t;
}

AxisTicks logTicks(double lo, double hi, int ticks) {
    AxisTicks t;
    t.lo = lo;
    t.hi = hi;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return t;
    ticks = std::clamp(ticks, 1, kMaxTicks);
    const auto valuesAt = [&](std::initializer_list<double> mantissas, int decadeStep) {
        QList<double> values;
        for (int e = int(std::floor(lo)); e <= int(std::ceil(hi)); ++e) {
            if (e % decadeStep != 0)
                continue;
            for (const double m : mantissas) {
                const double v = m * std::pow(10.0, e);
                const double p = std::log10(v);
                if (p >= lo - 1e-9 && p <= hi + 1e-9)
                    values << v;
            }
        }
        return values;
    };
    QList<double> values;
    for (const auto& mantissas : {std::initializer_list<double>{1, 2, 5}, {1, 3}, {1}}) {
        values = valuesAt(mantissas, 1);
        if (values.size() <= ticks + 1)
            break;
    }
    if (values.size() > ticks + 1) // many decades: every second, fifth... power
        values = valuesAt({1}, int(std::ceil(niceStep((hi - lo) / ticks))));
    if (values.size() < 2) {
        // Less than a factor of about three: round values, as on a linear axis.
        const AxisTicks lin = niceTicks(std::pow(10.0, lo), std::pow(10.0, hi), ticks, false);
        for (qsizetype i = 0; i < lin.at.size(); ++i) {
            if (lin.at[i] > 0) {
                t.at << std::log10(lin.at[i]);
                t.labels << lin.labels[i];
            }
        }
        return t;
    }
    for (const double v : values) {
        t.at << std::log10(v);
        // Each label its own magnitude: "0.002", "0.01", "20", "50k".
        const double magnitude = std::pow(10.0, std::floor(std::log10(v) + 1e-9));
        t.labels << tickLabel(v, magnitude, tickUnit(v));
    }
    return t;
}

bool applyTicks(QCategoryAxis* axis, const AxisTicks& t) {
    if (!(t.hi > t.lo))
        return false;
    if (axis->min() == t.lo && axis->max() == t.hi && axis->categoriesLabels() == t.labels)
        return false; // a range change makes every series recompute its geometry
    const bool relabelled = axis->categoriesLabels() != t.labels;
    for (const QString& label : axis->categoriesLabels())
        axis->remove(label);
    // Below the range: the first category's lower end draws no tick there.
    axis->setStartValue(t.lo - (t.hi - t.lo));
    for (qsizetype i = 0; i < t.at.size(); ++i)
        axis->append(t.labels[i], t.at[i]);
    axis->setRange(t.lo, t.hi);
    if (relabelled) {
        // Qt Charts sizes an axis' label room when its labels appear: hide and
        // show them so that other labels ("75" after "0.5") get room, not "…".
        axis->setLabelsVisible(false);
        axis->setLabelsVisible(true);
    }
    return relabelled;
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
        const AxisTicks t = niceTicks(lo, hi, ticks);
        if (t.at.size() < 2)
            continue;
        double widest = 0;
        for (const QString& label : t.labels)
            widest = std::max(widest, labelWidth(label));
        const double spacing = pixels * (t.at[1] - t.at[0]) / (t.hi - t.lo);
        if (spacing >= widest + gap)
            return ticks;
    }
    return 1;
}

AxisTicks fittingTicks(const std::function<AxisTicks(int)>& make, double pixels,
                       const std::function<double(const QString&)>& labelSize, double gap,
                       bool evenShares) {
    if (!(pixels > 0))
        return make(5); // not laid out yet
    const auto fits = [&](const AxisTicks& t) {
        double largest = 0;
        for (const QString& label : t.labels)
            largest = std::max(largest, labelSize(label));
        double closest = t.hi - t.lo; // a log axis' ticks are uneven
        for (qsizetype i = 1; i < t.at.size(); ++i)
            closest = std::min(closest, t.at[i] - t.at[i - 1]);
        double room = pixels * closest / (t.hi - t.lo);
        if (evenShares)
            room = std::min(room, pixels / double(t.at.size() + 1));
        return room >= largest + gap;
    };
    AxisTicks t;
    for (int n = 5; n >= 1; --n) {
        t = make(n);
        if (t.at.size() >= 2 && t.hi > t.lo && fits(t))
            return t;
    }
    // Even the fewest round steps leave no room (a short plot in large
    // fonts): every second, third... of those ticks, at last the two ends,
    // rather than labels Qt Charts would cut to "...".
    for (qsizetype stride = 2; t.hi > t.lo && stride < t.at.size(); ++stride) {
        AxisTicks fewer = t;
        fewer.at.clear();
        fewer.labels.clear();
        for (qsizetype i = 0; i < t.at.size(); i += stride) {
            fewer.at << t.at[i];
            fewer.labels << t.labels[i];
        }
        if (stride == t.at.size() - 1 || fits(fewer))
            return fewer;
    }
    return t;
}

} // namespace hwl::ui
