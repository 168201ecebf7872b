// TrainingChart's overlays: earlier runs' curves under the live ones, in a
// colour kept apart from every worker's (OverlayPalette), dashed, named in
// the legend.
#include "charts/trainingchart.h"

#include <QLineSeries>

#include <algorithm>

namespace hwl::ui {

void TrainingChart::setOverlays(const QList<Overlay>& overlays) {
    overlayDefs_ = overlays;
    overlays_.clear();
    overlays_.resize(std::size_t(overlays.size()));
    for (qsizetype i = 0; i < overlays.size(); ++i) {
        Series& s = overlays_[std::size_t(i)];
        s.id = overlaySeries(int(i));
        s.raw = overlays[i].points;
        s.resetDerived(smoothing_);
    }
    recreateLines();
    refresh();
}

void TrainingChart::setOverlaysFitAxes(bool on) {
    if (on == overlaysFitAxes_)
        return;
    overlaysFitAxes_ = on;
    fitAxes();
}

QColor TrainingChart::overlayColor(int index) const {
    // Every worker shown (worker 0 even before a run has any), and the test series.
    QList<QColor> shown;
    for (int rank = 0; rank < std::max({1, workerCount(), colorPeers_}); ++rank)
        shown << workerColor(rank);
    shown << testColor_;
    return OverlayPalette::colorOf(overlayDefs_, index, shown);
}

} // namespace hwl::ui
