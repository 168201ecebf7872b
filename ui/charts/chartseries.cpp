#include "charts/chartseries.h"

#include <algorithm>
#include <cmath>

namespace hwl::ui {

namespace {
// Points the axes cannot draw are dropped: non-finite values, and y <= 0 on a
// log axis. After smoothing, so that the average sees the same data in both
// scales.
bool drawable(double x, double y, bool log) {
    return std::isfinite(x) && std::isfinite(y) && (!log || y > 0);
}
} // namespace

double toAxisY(double y, bool log) {
    return log ? (y > 0 ? std::log10(y) : std::numeric_limits<double>::quiet_NaN()) : y;
}

double fromAxisY(double y, bool log) {
    return log ? std::pow(10.0, y) : y;
}

void thinKeepingExtremes(QList<ChartSample>& raw) {
    const qsizetype n = raw.size();
    if (n < 4)
        return;
    qsizetype out = 1; // raw[0] stays where it is
    for (qsizetype begin = 1; begin < n - 1; begin += 4) {
        const qsizetype end = std::min(begin + 4, n - 1);
        qsizetype lo = -1, hi = -1;
        for (qsizetype i = begin; i < end; ++i) {
            const double v = raw[i].value;
            if (!std::isfinite(v))
                continue;
            if (lo < 0 || v < raw[lo].value)
                lo = i;
            if (hi < 0 || v > raw[hi].value)
                hi = i;
        }
        if (lo < 0) {
            raw[out++] = raw[begin];
        } else if (lo == hi) {
            raw[out++] = raw[lo];
        } else {
            raw[out++] = raw[std::min(lo, hi)];
            raw[out++] = raw[std::max(lo, hi)];
        }
    }
    raw[out++] = raw[n - 1];
    raw.resize(out);
}

void ChartSeries::resetDerived(double smoothing) {
    decimated.clear();
    ema = EmaSmoother(smoothing);
    processed = 0;
    lastX = -std::numeric_limits<double>::infinity();
    sorted = true;
}

void ChartSeries::append(const QList<ChartSample>& points, qsizetype limit, double smoothing) {
    raw.append(points);
    dirty = true;
    enforceLimit(limit, smoothing);
}

void ChartSeries::enforceLimit(qsizetype limit, double smoothing) {
    if (raw.size() <= limit)
        return;
    while (raw.size() > limit)
        thinKeepingExtremes(raw);
    resetDerived(smoothing); // the indices the derived data refers to moved
    dirty = true;
}

void ChartSeries::extendDerived(XField xField, bool log) {
    if (!sorted)
        return;
    const qsizetype n = raw.size();
    if (n - processed > 4096) // a recompute, or a hidden series catching up
        decimated.reserve(n);
    for (qsizetype i = processed; i < n; ++i) {
        const ChartSample& c = raw[i];
        const double x = c.*xField;
        if (x < lastX) { // e.g. time stamps from different clocks; rare
            sorted = false;
            decimated.clear();
            return;
        }
        lastX = x;
        const double y = ema.next(c.value);
        const bool ok = drawable(x, y, log);
        decimated.append(ok ? toAxisY(y, log) : y, ok);
    }
    processed = n;
}

QList<QPointF> ChartSeries::displayPoints(XField xField, double smoothing, bool log, int buckets,
                                          QList<QPointF>& scratch) {
    extendDerived(xField, log); // O(points appended since the last call)
    QList<QPointF> shown;
    if (sorted) {
        // O(buckets) on top of the new points, see MinMaxDecimator.
        const std::vector<qsizetype>& kept = decimated.select(buckets);
        shown.reserve(qsizetype(kept.size()));
        for (const qsizetype i : kept)
            shown.append(QPointF(raw[i].*xField, decimated.value(i)));
    } else {
        // x went backwards: sort, smooth, filter and downsample it all, O(n).
        QList<QPointF>& pts = scratch;
        pts.clear(); // keeps the capacity
        pts.reserve(raw.size());
        for (const ChartSample& c : raw)
            pts.append(QPointF(c.*xField, c.value));
        std::stable_sort(pts.begin(), pts.end(),
                         [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
        smoothEmaInPlace(pts, smoothing);
        pts.erase(std::remove_if(pts.begin(), pts.end(),
                                 [&](const QPointF& p) { return !drawable(p.x(), p.y(), log); }),
                  pts.end());
        shown = downsampleMinMax(pts, buckets);
        if (shown.constData() == pts.constData())
            shown.detach(); // small series: keep the scratch list the caller's alone
        if (log)
            for (QPointF& p : shown)
                p.setY(toAxisY(p.y(), true));
    }
    hasExtent = !shown.isEmpty();
    if (hasExtent) {
        minX = shown.front().x();
        maxX = shown.back().x();
        minY = std::numeric_limits<double>::infinity();
        maxY = -std::numeric_limits<double>::infinity();
        for (const QPointF& p : shown) {
            minY = std::min(minY, p.y());
            maxY = std::max(maxY, p.y());
        }
    }
    return shown;
}

qsizetype ChartSeries::nearest(XField xField, double x) const {
    if (raw.isEmpty())
        return -1;
    // raw is in x order unless !sorted.
    qsizetype best = 0;
    if (sorted) {
        const auto it =
            std::lower_bound(raw.begin(), raw.end(), x,
                             [&](const ChartSample& c, double v) { return c.*xField < v; });
        best = std::min<qsizetype>(it - raw.begin(), raw.size() - 1);
        if (best > 0 && std::abs(raw[best - 1].*xField - x) <= std::abs(raw[best].*xField - x))
            --best;
    } else {
        for (qsizetype i = 1; i < raw.size(); ++i)
            if (std::abs(raw[i].*xField - x) < std::abs(raw[best].*xField - x))
                best = i;
    }
    return best;
}

} // namespace hwl::ui
