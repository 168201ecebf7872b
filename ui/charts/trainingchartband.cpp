// TrainingChart's band view: the workers' mean and their min-max range per
// bucket of x, drawn instead of one line per worker (many workers at once).
#include "charts/trainingchart.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hwl::ui {

void TrainingChart::setBandView(bool on) {
    if (on == band_)
        return;
    band_ = on;
    recreateLines();
    refresh();
}

void TrainingChart::addBandSeries() {
    for (Series& s : workers_) { // hidden, legend and all: the band stands for them
        s.line->setProperty("inBand", true);
        s.line->setVisible(false);
        for (QLegendMarker* marker : chart_->legend()->markers(s.line))
            marker->setVisible(false);
    }
    const QColor colour = workerColor(0);
    bandArea_ = new QAreaSeries(new QLineSeries, new QLineSeries);
    bandArea_->setName(tr("lowest to highest of %1 workers").arg(workers_.size()));
    QColor fill = colour;
    fill.setAlphaF(0.25);
    chart_->addSeries(bandArea_);
    bandArea_->attachAxis(xAxisItem_);
    bandArea_->attachAxis(yAxisItem_);
    bandArea_->setBrush(fill);
    bandArea_->setPen(Qt::NoPen);
    bandMean_ = new QLineSeries;
    bandMean_->setName(tr("mean of %1 workers").arg(workers_.size()));
    chart_->addSeries(bandMean_);
    bandMean_->attachAxis(xAxisItem_);
    bandMean_->attachAxis(yAxisItem_);
    QPen pen(colour);
    pen.setWidthF(lineWidth(2.0));
    bandMean_->setPen(pen);
}

void TrainingChart::rebuildBand() {
    if (!band_ || !bandMean_)
        return;
    const double ChartSample::*xField = xFieldOf(xMode_);
    // Each worker's drawn points (smoothed, downsampled), then per bucket of
    // x: each worker's mean there, and their lowest, highest and mean.
    std::vector<QList<QPointF>> curves;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (Series& s : workers_) {
        extendDerived(s);
        s.dirty = false;
        if (!s.sorted)
            continue; // x went backwards (rare): left out of the band
        QList<QPointF> pts;
        for (const qsizetype i : s.decimated.select(buckets_))
            if (std::isfinite(s.decimated.value(i)))
                pts.append(QPointF(s.raw[i].*xField, s.decimated.value(i)));
        if (pts.isEmpty())
            continue;
        lo = std::min(lo, pts.front().x());
        hi = std::max(hi, pts.back().x());
        curves.push_back(std::move(pts));
    }
    QList<QPointF> mean, lower, upper;
    const int buckets = std::max(1, buckets_);
    const double width = hi > lo ? (hi - lo) / buckets : 1;
    const auto nb = std::size_t(buckets);
    std::vector<double> sum(nb, 0.0), cnt(nb, 0.0), wsum(nb, 0.0), wcnt(nb, 0.0);
    std::vector<double> mn(nb, std::numeric_limits<double>::infinity());
    std::vector<double> mx(nb, -std::numeric_limits<double>::infinity());
    for (const QList<QPointF>& pts : curves) {
        std::fill(wsum.begin(), wsum.end(), 0.0);
        std::fill(wcnt.begin(), wcnt.end(), 0.0);
        for (const QPointF& p : pts) {
            const auto b = std::size_t(std::clamp(int((p.x() - lo) / width), 0, buckets - 1));
            wsum[b] += p.y();
            wcnt[b] += 1;
        }
        for (std::size_t b = 0; b < nb; ++b) {
            if (wcnt[b] == 0)
                continue;
            const double v = wsum[b] / wcnt[b];
            sum[b] += v;
            cnt[b] += 1;
            mn[b] = std::min(mn[b], v);
            mx[b] = std::max(mx[b], v);
        }
    }
    hasBand_ = false;
    for (std::size_t b = 0; b < nb; ++b) {
        if (cnt[b] == 0)
            continue;
        const double x = lo + (double(b) + 0.5) * width;
        mean.append({x, sum[b] / cnt[b]});
        lower.append({x, mn[b]});
        upper.append({x, mx[b]});
        if (!hasBand_ || mn[b] < bandMinY_)
            bandMinY_ = mn[b];
        if (!hasBand_ || mx[b] > bandMaxY_)
            bandMaxY_ = mx[b];
        hasBand_ = true;
    }
    bandMinX_ = lo;
    bandMaxX_ = hi;
    bandMean_->replace(mean);
    bandArea_->lowerSeries()->replace(lower);
    bandArea_->upperSeries()->replace(upper);
}

QList<QPointF> TrainingChart::bandPoints(int which) const {
    if (!bandMean_)
        return {};
    return which == 0   ? bandMean_->points()
           : which == 1 ? bandArea_->lowerSeries()->points()
                        : bandArea_->upperSeries()->points();
}

} // namespace hwl::ui
