// TrainingChart's band view: the workers' mean and their min-max range per
// bucket of x (ChartBand), drawn instead of one line per worker.
#include "charts/trainingchartparts.h"

#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>

#include <cmath>

namespace hwl::ui {

void TrainingChart::setBandView(bool on) {
    if (on == p_->bandView_)
        return;
    p_->bandView_ = on;
    p_->recreateLines();
    refresh();
}

void TrainingChart::Parts::addBandSeries() {
    for (ChartSeries& s : workers_) { // hidden, legend and all: the band stands for them
        s.line->setProperty("inBand", true);
        s.line->setVisible(false);
        for (QLegendMarker* marker : chart_->legend()->markers(s.line))
            marker->setVisible(false);
    }
    band_.attach(chart_, xAxisItem_, yAxisItem_, int(workers_.size()), workerColor(0),
                 lineWidth(2.0));
}

void TrainingChart::Parts::rebuildBand() {
    if (!bandView_ || !band_.attached())
        return;
    const double ChartSample::*xField = xFieldOf(xMode_);
    // Each worker's drawn points (smoothed, downsampled), then the band over them.
    std::vector<QList<QPointF>> curves;
    for (ChartSeries& s : workers_) {
        s.extendDerived(xField, logScale_);
        s.dirty = false;
        if (!s.sorted)
            continue; // x went backwards (rare): left out of the band
        QList<QPointF> pts;
        for (const qsizetype i : s.decimated.select(buckets_))
            if (std::isfinite(s.decimated.value(i)))
                pts.append(QPointF(s.raw[i].*xField, s.decimated.value(i)));
        if (!pts.isEmpty())
            curves.push_back(std::move(pts));
    }
    band_.show(ChartBand::compute(curves, buckets_));
}

QList<QPointF> TrainingChart::bandPoints(int which) const {
    return p_->band_.points(which);
}

} // namespace hwl::ui
