#include "charts/chartband.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QPen>

#include <algorithm>
#include <limits>

namespace hwl::ui {

ChartBand::Points ChartBand::compute(const std::vector<QList<QPointF>>& curves, int buckets) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const QList<QPointF>& pts : curves)
        if (!pts.isEmpty()) {
            lo = std::min(lo, pts.front().x());
            hi = std::max(hi, pts.back().x());
        }
    Points out;
    buckets = std::max(1, buckets);
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
    Extent& e = out.extent;
    for (std::size_t b = 0; b < nb; ++b) {
        if (cnt[b] == 0)
            continue;
        const double x = lo + (double(b) + 0.5) * width;
        out.mean.append({x, sum[b] / cnt[b]});
        out.lower.append({x, mn[b]});
        out.upper.append({x, mx[b]});
        if (!e.any || mn[b] < e.minY)
            e.minY = mn[b];
        if (!e.any || mx[b] > e.maxY)
            e.maxY = mx[b];
        e.any = true;
    }
    e.minX = lo;
    e.maxX = hi;
    return out;
}

void ChartBand::attach(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, int workers,
                       const QColor& colour, double width) {
    area_ = new QAreaSeries(new QLineSeries, new QLineSeries);
    area_->setName(QObject::tr("lowest to highest of %1 workers").arg(workers));
    QColor fill = colour;
    fill.setAlphaF(0.25);
    chart->addSeries(area_);
    area_->attachAxis(x);
    area_->attachAxis(y);
    area_->setBrush(fill);
    area_->setPen(Qt::NoPen);
    mean_ = new QLineSeries;
    mean_->setName(QObject::tr("mean of %1 workers").arg(workers));
    chart->addSeries(mean_);
    mean_->attachAxis(x);
    mean_->attachAxis(y);
    QPen pen(colour);
    pen.setWidthF(width);
    mean_->setPen(pen);
}

void ChartBand::detach() {
    area_ = nullptr;
    mean_ = nullptr;
}

void ChartBand::show(const Points& points) {
    extent_ = points.extent;
    if (!attached())
        return;
    mean_->replace(points.mean);
    area_->lowerSeries()->replace(points.lower);
    area_->upperSeries()->replace(points.upper);
}

QList<QPointF> ChartBand::points(int which) const {
    if (!attached())
        return {};
    return which == 0   ? mean_->points()
           : which == 1 ? area_->lowerSeries()->points()
                        : area_->upperSeries()->points();
}

} // namespace hwl::ui
