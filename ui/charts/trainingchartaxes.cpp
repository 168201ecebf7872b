// TrainingChart's axes: fitted to the live data (overlays clipped to it
// unless asked), ticks the plot has room for, a floor and a ceiling, the
// log scale as log10 of the values on a linear axis, relabelled after a zoom.
#include "charts/trainingchartparts.h"

#include "widgets/chartaxes.h"

#include <QCategoryAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QLineSeries>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hwl::ui {

void TrainingChart::Parts::fitAxes() {
    if (zoomed_)
        return; // the user's range stays until resetZoom()
    double minX = std::numeric_limits<double>::infinity();
    double maxX = -minX, minY = minX, maxY = -minX;
    bool any = false;
    const auto cover = [&](double x0, double x1, double y0, double y1) {
        any = true;
        minX = std::min(minX, x0);
        maxX = std::max(maxX, x1);
        minY = std::min(minY, y0);
        maxY = std::max(maxY, y1);
    };
    forEachSeries([&](ChartSeries& s) {
        if (s.line->isVisible() && s.hasExtent && s.id > kOverlayBase)
            cover(s.minX, s.maxX, s.minY, s.maxY);
    });
    if (const ChartBand::Extent& band = band_.extent(); bandView_ && band.any)
        cover(band.minX, band.maxX, band.minY, band.maxY);
    // Overlays are clipped to the live run's range, unless asked to fit or
    // there is no live data yet.
    if (overlaysFitAxes_ || !any)
        for (const ChartSeries& s : overlays_)
            if (s.line && s.line->isVisible() && s.hasExtent)
                cover(s.minX, s.maxX, s.minY, s.maxY);
    const double dataMinY = minY;
    if (!any) {
        minX = 0;
        maxX = 1;
        minY = logScale_ ? -1 : 0;
        maxY = 1;
    } else {
        if (!(maxX > minX)) { // one point: from the start (steps, samples, seconds)
            maxX = std::max(1.0, maxX >= 0 ? maxX * 1.1 : maxX + 1);
            minX = std::min(0.0, minX);
        }
        if (yFromZero_ && !logScale_)
            minY = std::min(minY, 0.0);
        if (!logScale_ && maxY - minY < yMinSpan_) { // widened down to it, in the bounds
            const double ceiling = std::isfinite(yCeiling_) ? yCeiling_ : maxY + yMinSpan_;
            maxY = std::min(ceiling, std::max(maxY, minY + yMinSpan_ / 2));
            minY = maxY - yMinSpan_;
        }
        widenRange(minY, maxY, false); // in log10 units on a log scale: linear padding
    }
    // Losses and distances are never negative: do not pad below zero.
    if (!logScale_ && any && minY < 0 && dataMinY >= 0)
        minY = 0;
    // As many ticks as have room for their labels: Qt Charts elides the rest.
    bool relabelled = applyTicks(xAxisItem_, niceTicks(minX, maxX, xTicks(minX, maxX)));
    const AxisTicks y = yTicks(minY, maxY, true);
    if (y.hi > y.lo)
        relabelled = applyTicks(yAxisItem_, y) || relabelled;
    // Qt Charts keeps the room it gave the labels when only their format
    // changes: lay the chart out again, so that the wider ones get theirs.
    if (relabelled) {
        fitRightMargin();
        chart_->layout()->invalidate();
    }
}

void TrainingChart::Parts::fitRightMargin() {
    // The last x label is centred on the plot's right edge: half of it lies
    // beyond, where the view would cut it ("80" for "80k").
    const QStringList labels = xAxisItem_->categoriesLabels();
    double half = 0;
    if (!labels.isEmpty() && xAxisItem_->endValue(labels.last()) >=
                                 xAxisItem_->max() - 1e-9 * std::abs(xAxisItem_->max()))
        half = QFontMetricsF(xAxisItem_->labelsFont()).horizontalAdvance(labels.last()) / 2;
    QMargins margins = chart_->margins();
    const int right = std::max(4, int(std::ceil(half)) + 2);
    if (margins.right() != right) {
        margins.setRight(right);
        chart_->setMargins(margins);
    }
}

void TrainingChart::Parts::relabelAxis(QCategoryAxis* axis) {
    // Only this axis: the other one may not have its zoomed range yet.
    const double lo = axis->min(), hi = axis->max();
    const AxisTicks t =
        axis == xAxisItem_ ? niceTicks(lo, hi, xTicks(lo, hi), false) : yTicks(lo, hi, false);
    if (applyTicks(axis, t)) {
        fitRightMargin();
        chart_->layout()->invalidate();
    }
}

AxisTicks TrainingChart::Parts::yTicks(double lo, double hi, bool roundOut) const {
    // As many as the plot's height has room for: Qt Charts elides labels
    // taller than their share of the axis.
    const double labelHeight = QFontMetricsF(yAxisItem_->labelsFont()).height();
    const auto make = [&](int n) {
        AxisTicks t = logScale_ ? logTicks(lo, hi, n) : niceTicks(lo, hi, n, roundOut);
        if (roundOut)
            clipToBounds(t);
        return t;
    };
    AxisTicks t = fittingTicks(
        make, chart_->plotArea().height(), [labelHeight](const QString&) { return labelHeight; }, 6,
        true);
    // A top tick on the plot's top edge has half its label above it, under
    // the chart's title: room for that half (and a little) above the tick.
    const double plot = chart_->plotArea().height();
    if (roundOut && !t.at.isEmpty() && plot > 0 && t.hi > t.lo &&
        t.at.last() >= t.hi - 1e-9 * std::max(1.0, std::abs(t.hi))) {
        const double room = (labelHeight / 2 + 3) / plot;
        if (room < 0.25)
            t.hi += room * (t.hi - t.lo) / (1 - room);
    }
    return t;
}

void TrainingChart::Parts::clipToBounds(AxisTicks& t) const {
    // The bounds after rounding: accuracy stops at 100, not at the next
    // tick; before fitting, so that the ticks fitted are those shown.
    const double floor = toAxisY(yFloor_, logScale_), ceiling = toAxisY(yCeiling_, logScale_);
    if (std::isfinite(floor) && t.lo < floor)
        t.lo = floor;
    if (std::isfinite(ceiling) && t.hi > ceiling)
        t.hi = ceiling;
    if (!(t.hi > t.lo))
        return;
    for (qsizetype i = t.at.size() - 1; i >= 0; --i) {
        if (t.at[i] < t.lo - 1e-9 || t.at[i] > t.hi + 1e-9) {
            t.at.removeAt(i);
            t.labels.removeAt(i);
        }
    }
}

void TrainingChart::setYRange(bool fromZero, double minSpan) {
    p_->yFromZero_ = fromZero;
    p_->yMinSpan_ = std::max(0.0, minSpan);
    p_->fitAxes();
}

void TrainingChart::setYBounds(double floor, double ceiling) {
    p_->yFloor_ = floor;
    p_->yCeiling_ = ceiling;
    p_->fitAxes();
}

} // namespace hwl::ui
