// TrainingChart's overlays: earlier runs' curves under the live ones, in a
// colour kept apart from every worker's (OverlayPalette), dashed, named in
// the legend.
#include "charts/trainingchartparts.h"

#include <QLineSeries>

#include <algorithm>

namespace hwl::ui {

void TrainingChart::setOverlays(const QList<Overlay>& overlays) {
    p_->overlayDefs_ = overlays;
    p_->overlays_.clear();
    p_->overlays_.resize(std::size_t(overlays.size()));
    for (qsizetype i = 0; i < overlays.size(); ++i) {
        ChartSeries& s = p_->overlays_[std::size_t(i)];
        s.id = overlaySeries(int(i));
        s.raw = overlays[i].points;
        s.resetDerived(p_->weightOf(s));
    }
    p_->recreateLines();
    refresh();
}

void TrainingChart::setLiveName(const QString& name) {
    if (name == p_->liveName_)
        return;
    p_->liveName_ = name;
    p_->fitTexts();
}

QString TrainingChart::liveName() const {
    return p_->liveName_;
}

void TrainingChart::setOverlaysFitAxes(bool on) {
    if (on == p_->overlaysFitAxes_)
        return;
    p_->overlaysFitAxes_ = on;
    p_->fitAxes();
}

QColor TrainingChart::overlayColor(int index) const {
    // Every worker shown (worker 0 even before a run has any), and the test series.
    QList<QColor> shown;
    for (int rank = 0; rank < std::max({1, workerCount(), p_->colorPeers_}); ++rank)
        shown << workerColor(rank);
    shown << p_->testColor_;
    return OverlayPalette::colorOf(p_->overlayDefs_, index, shown);
}

} // namespace hwl::ui
